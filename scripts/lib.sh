# Shell functions shared by the scripts (sourced, not run).

# A trace's measured times, from its own records: "span_s comm_s" of the slowest rank. The
# span runs from MPI_Init's return to MPI_Finalize's entry (what psins-sim predicts: it gives
# Init and Finalize no time); comm is the time inside the other MPI calls. Needs $BIN.
measured() {
  "$BIN/psins-dump" "$1" --json | awk '
    /"kind":"init"/ || /"kind":"step"/ { next }
    { match($0, /"task":[0-9]+/); t = substr($0, RSTART + 7, RLENGTH - 7)
      match($0, /"gap_ns":[0-9]+/); g = substr($0, RSTART + 9, RLENGTH - 9)
      match($0, /"dur_ns":[0-9]+/); d = substr($0, RSTART + 9, RLENGTH - 9)
      if ($0 ~ /"kind":"finalize"/) d = 0
      span[t] += g + d; comm[t] += d }
    END { for (t in span) { if (span[t] > s) s = span[t]; if (comm[t] > c) c = comm[t] }
          printf "%.9f %.9f\n", s / 1e9, c / 1e9 }'
}
