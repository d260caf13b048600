# Shell functions shared by the scripts (sourced, not run).

# A trace's measured times, as psins-sim's report gives them beside its prediction: "span_s
# comm_s", the slowest rank's span from MPI_Init's return to MPI_Finalize's entry and the most
# time any rank spent in MPI (docs/simulator.md, "measured"). The machine does not change
# these figures. Needs $BIN.
measured() {
  "$BIN/psins-sim" "$1" -m configs/fat-simple.toml -q --no-progress --json - | awk '
    /"measured": \{/ { on = 1; next }
    on && /\}/ { on = 0 }
    on { gsub(/[",:]/, ""); v[$1] = $2 }
    END { if (!("span_s" in v)) exit 1; printf "%.9f %.9f\n", v["span_s"], v["comm_s"] }'
}
