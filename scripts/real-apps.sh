#!/usr/bin/env bash
# Build open-source MPI applications for validation (docs/validation.md, "Real applications").
#
#   bash scripts/real-apps.sh SRC_DIR [OUT_DIR]
#
# SRC_DIR holds the applications' sources, one directory each, named like their repositories
# (TeaLeaf_ref, CloverLeaf3D_ref, miniGhost, Quicksilver, Nekbone, Kripke, Kernels, NPB3.4-MPI,
# HPCCG). Third-party code never
# enters this repository and this script downloads nothing: the sources are fetched by hand.
# Each application found is copied to OUT_DIR/<name>/src (the source tree stays untouched),
# built there with MPICH's compiler wrappers, and given an input deck in OUT_DIR/<name>/run
# sized for a run of about 0.5–2 s at 2 ranks on the project's 2-core VM (the lower end,
# judged from the CPU time of a one-rank run with a rank's share of the problem). Each built
# application appends one line to OUT_DIR/apps.list:
#
#   name <TAB> working directory <TAB> program and arguments
#
# and the validation runs `mpirun -n 2 <program and arguments>` from that directory.
# An application missing from SRC_DIR is skipped with a note; a failed build is reported by
# name with the end of its log, the others still build, and the script exits 1 at the end
# (also when SRC_DIR holds none of them).
#
# Settings (environment): MPICC, MPICXX, MPIF90 (default mpicc, mpicxx, mpif90), JOBS (make -j,
# default 2).
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 SRC_DIR [OUT_DIR]   (SRC_DIR: a directory of application sources)" >&2
  exit 2
fi
[ -d "$1" ] || { echo "real-apps: no directory $1 (SRC_DIR)" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
# OUT_DIR defaults to the repository's build/real-apps, wherever the script is run from.
OUT=${2:-$(cd "$(dirname "$0")/.." && pwd)/build/real-apps}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
MPICC=${MPICC:-mpicc}
MPICXX=${MPICXX:-mpicxx}
MPIF90=${MPIF90:-mpif90}
JOBS=${JOBS:-2}
# gfortran 10 and later refuse a call whose argument types differ from another call of the
# same routine (MPI buffers of different types passed to the old `mpif.h` interface): these
# codes predate that; NPB's random number generator also writes its hexadecimal constants as
# X'…', which gfortran 10 and later refuse unless told. Debian's MPICH mpif90 adds both flags;
# Open MPI's wrapper adds neither.
FLEGACY="-fallow-argument-mismatch -fallow-invalid-boz"

# One line of apps.list: name, working directory, program and arguments; the program must
# have been built (a make that succeeds without building it is a failure too).
list() {
  [ -x "${3%% *}" ] || { echo "real-apps: $1: the build made no ${3%% *}"; return 1; }
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$OUT/apps.list"
}

# TeaLeaf (UK-MAC/TeaLeaf_ref): 2D heat conduction, a sparse linear solve per time step;
# halo exchanges and one allreduce per solver iteration. Fortran 90 + a C timer.
build_tealeaf() { # BUILD RUN
  cd "$1" || return 1
  # COMPILER=GNU selects gfortran's flags (-cpp, -ffree-line-length-none); OMP_GNU= drops
  # -fopenmp: one thread per rank, so the trace's compute bursts are one core's work.
  make -j"$JOBS" COMPILER=GNU OMP_GNU= MPI_COMPILER="$MPIF90" C_MPI_COMPILER="$MPICC" \
    OPTIONS="$FLEGACY" tea_leaf || return 1
  # The source's tea.in (1000² cells, 10 steps) takes minutes at 2 ranks: 448² cells and 4
  # steps of the same problem and CG-then-PPCG solver (hundreds of iterations per step, each
  # with halo exchanges and allreduces); the work grows as about the cube of the side. No
  # test_problem line: its reference answer is for the full-size deck.
  cat > "$2/tea.in" << 'EOF'
*tea
state 1 density=100.0 energy=0.0001
state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0
state 3 density=0.1 energy=0.1 geometry=rectangle xmin=1.0 xmax=6.0 ymin=1.0 ymax=2.0
state 4 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=6.0 ymin=1.0 ymax=8.0
state 5 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=10.0 ymin=7.0 ymax=8.0
x_cells=448
y_cells=448
xmin=0.0
ymin=0.0
xmax=10.0
ymax=10.0
initial_timestep=0.004
end_step=4
tl_max_iters=10000
tl_use_ppcg
tl_eps=1.0e-15
tl_preconditioner_type=none
halo_depth=2
*endtea
EOF
  list tealeaf "$2" "$1/tea_leaf"
}

# CloverLeaf3D (UK-MAC/CloverLeaf3D_ref): 3D compressible hydrodynamics on a structured
# grid; face halo exchanges of many fields and a few reductions per step. Fortran 90 + C.
build_cloverleaf3d() { # BUILD RUN
  cd "$1" || return 1
  # As for TeaLeaf: gfortran's flags, no OpenMP (OMP=).
  make -j"$JOBS" COMPILER=GNU OMP= MPI_COMPILER="$MPIF90" C_MPI_COMPILER="$MPICC" \
    OPTIONS="$FLEGACY" clover_leaf || return 1
  # clover.in's problem (a dense cuboid in a light gas) on 48³ cells for 40 steps instead of
  # 96³ for 75; no test_problem line (its reference answer is for the full deck).
  cat > "$2/clover.in" << 'EOF'
*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=cuboid xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=2.0
 x_cells=48
 y_cells=48
 z_cells=48
 xmin=0.0
 ymin=0.0
 zmin=0.0
 xmax=10.0
 ymax=10.0
 zmax=10.0
 initial_timestep=0.04
 max_timestep=0.04
 end_step=40
 tiles_per_chunk 1
*endclover
EOF
  list cloverleaf3d "$2" "$1/clover_leaf"
}

# miniGhost (Mantevo/miniGhost, ref/): 3D stencil on many variables with bulk-synchronous
# face exchanges and a global sum per variable and step. Fortran + a C main.
build_minighost() { # BUILD RUN
  cd "$1/ref" || return 1
  # makefile.mpi.gnu is the gfortran/MPICH configuration; it points FC, CC and MPI_INCLUDE
  # at an MPICH source tree of its author's: the wrappers need none of that.
  # Serial make: its rules do not say which object needs which Fortran module.
  # -ffree-line-length-none: some free-form lines run past gfortran's 132 columns.
  # LD: linking with the C wrapper (its choice) misses the Fortran and Fortran-MPI runtimes;
  # the Fortran wrapper brings them, and the C main is taken as it is.
  # CC: its main.c calls MPI_Abort with the arguments swapped (on an error path only), which
  # compiles where MPI_Comm is an int (MPICH) but is an error in gcc 14 where it is a pointer
  # (Open MPI): kept a warning. It also calls MPI_Errhandler_set, removed in MPI-3.0, which
  # Open MPI's mpi.h turns into a compile error unless told to declare it (its library
  # still has it).
  make -f makefile.mpi.gnu FC="$MPIF90 $FLEGACY -ffree-line-length-none" \
    CC="$MPICC -Wno-error=int-conversion -DOMPI_OMIT_MPI1_COMPAT_DECLS=0" LD="$MPIF90" MPI_INCLUDE= \
    miniGhost.x || return 1
  # Defaults: 100³ points per rank, 5 variables, 100 steps, 2D 5-point stencil. Here
  # --scaling 1 (strong: the sizes are global) on 96x48x48 split in x (--npx 2), so 48³ per
  # rank, 10 variables, 10 steps, the 3D 7-point stencil (--stencil 23), bulk-synchronous
  # exchange (--comm_method 10, the default), every variable summed each step (default).
  list minighost "$2" "$1/ref/miniGhost.x --scaling 1 --nx 96 --ny 48 --nz 48 --num_vars 10 --num_tsteps 10 --stencil 23 --comm_method 10 --npx 2 --npy 1 --npz 1"
}

# Quicksilver (LLNL/Quicksilver): Monte Carlo particle transport; irregular point-to-point
# particle exchanges (MPI_Isend/Irecv/Test) and allreduces per cycle. C++.
build_quicksilver() { # BUILD RUN
  cd "$1/src" || return 1
  # The Makefile asks git for a version and hash; a copy is not a repository, so both are
  # written here. CPPFLAGS=-DHAVE_MPI: MPI without OpenMP or a GPU (the Makefile's default
  # is an AMD GPU build).
  echo '#define GIT_HASH "none"' > git_hash.hh
  echo '#define GIT_VERS "none"' > git_vers.hh
  make -j"$JOBS" CXX="$MPICXX" CXXFLAGS="-O2" CPPFLAGS="-DHAVE_MPI" LDFLAGS= qs || return 1
  # CORAL2 problem 1 (its physics unchanged) at a small size: 8x8x4 mesh elements of unit
  # length, split in x between the 2 ranks (-I 2), 10,000 particles. The deck's nSteps
  # (100) would override -N, so the copy here says 5 steps. With so few particles the
  # statistical checks printed at the end (reaction ratios, fluence homogeneity) may say
  # FAIL, traced or not; they judge the sample, not the run.
  sed 's/^\( *nSteps:\).*/\1 5/' "$1/Examples/CORAL2_Benchmark/Problem1/Coral2_P1.inp" > "$2/Coral2_P1.inp" || return 1
  list quicksilver "$2" "$1/src/qs -i Coral2_P1.inp -X 8 -Y 8 -Z 4 -x 8 -y 8 -z 4 -I 2 -J 1 -K 1 -n 10000"
}

# Nekbone (Nek5000/Nekbone): the conjugate-gradient core of the Nek5000 spectral-element
# solver; nearest-neighbour gather-scatter exchanges and dot-product allreduces. Fortran 77.
build_nekbone() { # BUILD RUN
  cd "$1/test/example1" || return 1
  # test/example1's makenek sets the compilers and then sources src/makenek.inc, which writes
  # the makefile; the same done here with this script's compilers. makenek.inc asks on the
  # terminal when it does not know the compiler: stdin is /dev/null.
  # (set +u: makenek.inc reads settings makenek may leave unset.)
  (set +u && SOURCE_ROOT="$1/src" F77="$MPIF90 $FLEGACY" CC="$MPICC" && . "$1/src/makenek.inc") < /dev/null || return 1
  make -j"$JOBS" -f makefile || return 1
  # data.rea's default sweeps 1 to 50 elements per rank; here one size, the 100 elements of
  # order 10 per rank SIZE allows (a warm-up and a timed CG solve, 100 iterations each).
  cp SIZE "$2/" && cat > "$2/data.rea" << 'EOF'
.true.    = ifbrick                  ! brick or linear geometry
100 100 1 = iel0,ielN(per proc),stride ! range of number of elements per proc.
10  10  1 = nx0,nxN,stride           ! poly. order range for nx1
0    0  0 = npx,npy,npz              ! np distrb, if != np, nekbone handle
0    0  0 = mx,my,mz                 ! nelt distrb, if != nelt, nekbone handle
EOF
  list nekbone "$2" "$1/test/example1/nekbone"
}

# Kripke (LLNL/Kripke, version 1.1: commit 3a421a1, the last before RAJA and its submodules):
# 3D Sn deterministic particle transport; a wavefront sweep of nonblocking messages between
# neighbouring subdomains, polled with MPI_Testany, and allreduces. C++. Its CMake build only
# lists the sources: compiled here directly, so cmake is not needed.
build_kripke() { # BUILD RUN
  cd "$1/src" || return 1
  [ -f Kripke/Sweep_Solver.cpp ] && [ ! -d ../tpl ] || {
    echo "real-apps: kripke: expects version 1.1 (git archive 3a421a1 of LLNL/Kripke; later versions need RAJA)"
    return 1
  }
  $MPICXX -O2 -I. -o kripke kripke.cpp Kripke/*.cpp Kripke/Kernel/*.cpp Kripke/ParallelComm/*.cpp \
    Kripke/Test/*.cpp || return 1
  # 16^3 zones split in x between the 2 ranks, 16 groups, 48 directions, 5 sweep iterations.
  list kripke "$2" "$1/src/kripke --procs 2,1,1 --zones 16,16,16 --groups 16 --quad 48 --niter 5"
}

# The ParRes Kernels (ParRes/Kernels, MPI1/Transpose): a distributed matrix transpose; per
# iteration a local transpose and, for each phase k = 1 .. P-1, a nonblocking exchange with
# ranks rank + k and rank - k tagged with the phase. C. Only MPI1/, common/ and include/ of
# the repository are needed.
build_prk_transpose() { # BUILD RUN
  cd "$1/MPI1/Transpose" || return 1
  # common/make.defs is the user's choice of compilers (the repository ships examples).
  printf 'MPICC=%s\nDEFAULT_OPT_FLAGS=-O3\n' "$MPICC" > ../../common/make.defs
  # A source tree built in place holds objects of another MPI that make takes as up to date.
  make clean > /dev/null || return 1
  make transpose || return 1
  # 10 iterations of a 1,920² matrix (divisible by every power of two up to 128 ranks).
  list prk_transpose "$2" "$1/MPI1/Transpose/transpose 10 1920"
}

# The ParRes Kernels' stencil (ParRes/Kernels, MPI1/Stencil): a radius-2 star stencil on a
# square grid split over a 2D grid of ranks (its own factorisation of the rank count); per
# iteration a face-halo exchange with up to 4 neighbours (Irecv/Isend/Wait), and two
# reductions at the end. C. Needs MPI1/, common/ (with common/Stencil's loop generator) and
# include/ of the repository, as the transpose does.
build_prk_stencil() { # BUILD RUN
  cd "$1/MPI1/Stencil" || return 1
  printf 'MPICC=%s\nDEFAULT_OPT_FLAGS=-O3\n' "$MPICC" > ../../common/make.defs
  make clean > /dev/null || return 1
  # The Makefile's defaults: radius 2, star-shaped, double precision, compact loop body.
  make stencil || return 1
  # 50 iterations on a 1,920² grid (strong scaling; 1,920 divides among 2, 4 or 8 ranks a
  # side, so every power of two up to 64 ranks gets equal blocks).
  list prk_stencil "$2" "$1/MPI1/Stencil/stencil 50 1920"
}

# HPCCG (Mantevo/HPCCG): a conjugate-gradient solve of a 27-point-stencil sparse matrix on
# a brick of nx x ny x nz points per rank, the ranks stacked in z (weak scaling); per
# iteration a halo exchange with the ranks above and below and two dot-product allreduces,
# 150 iterations (fixed in main.cpp). C++. Writes a hpccg-*.yaml summary where it runs.
build_hpccg() { # BUILD RUN
  cd "$1" || return 1
  # USE_MPI=-DUSING_MPI: the MPI build (the Makefile's default is serial); the wrapper for
  # CXX and LINKER (the Makefile names /usr/local/bin/g++); CPP_OPT_FLAGS without the
  # Makefile's -ftree-vectorizer-verbose (a report nobody reads); no OpenMP (its default).
  make -j"$JOBS" CXX="$MPICXX" LINKER="$MPICXX" USE_MPI=-DUSING_MPI CPP_OPT_FLAGS=-O3 test_HPCCG || return 1
  # 32³ points per rank: about 0.09 s of CPU per rank for the 150 iterations.
  list hpccg "$2" "$1/test_HPCCG 32 32 32"
}

# The NAS Parallel Benchmarks 3.4, MPI version (NPB3.4-MPI). Since 3.4 the arrays are
# allocated at run time: a binary serves any process count (checked when it runs; CG, MG, FT,
# IS and LU want a power of two), so one binary per benchmark and class. The copy used
# (thaisacs/NPB3.4-MPI) adds a course's iteration timer, kernel_stats/: the benchmarks call
# it at each iteration and it prints one "[MO833] ..." line per rank and iteration; its two
# objects are linked when the directory is there (stock NPB has none).
# npb_make BUILD BENCHMARK CLASS builds BUILD/bin/BENCHMARK.CLASS.x.
npb_make() {
  cd "$1" || return 1
  local stats=
  if [ -d kernel_stats ]; then
    $MPICC -O2 -c -o kernel_stats/kernel_stats.o kernel_stats/kernel_stats.c || return 1
    $MPICC -O2 -c -o kernel_stats/arg_parse.o kernel_stats/arg_parse.c || return 1
    stats="../kernel_stats/kernel_stats.o ../kernel_stats/arg_parse.o"
  fi
  # config/make.def is the user's; this one names the wrappers. CC (the host compiler)
  # builds sys/setparams, which writes each benchmark's npbparams.h for the class.
  # Serial make: the Fortran modules' order is in the Makefiles' rules, not guaranteed by -j.
  cat > config/make.def << EOF
MPIFC = $MPIF90
FLINK = \$(MPIFC)
FFLAGS = -O3 $FLEGACY
FLINKFLAGS = \$(FFLAGS) $stats
MPICC = $MPICC
CLINK = \$(MPICC)
CFLAGS = -O3
CLINKFLAGS = \$(CFLAGS) $stats
CC = cc
BINDIR = ../bin
RAND = randi8
EOF
  mkdir -p bin && make "$2" CLASS="$3"
}

# NPB CG: conjugate gradient on a random sparse matrix over a 2D grid of ranks; per iteration
# row reductions by recursive exchanges (Send/Irecv) and a transpose exchange. Class S (1,400
# rows, 15 x 25 iterations): class W's run takes 80 s at 16 ranks on 2 cores (oversubscribed,
# each of its many small messages costs a time slice), S's 56 s.
build_npb_cg() { # BUILD RUN
  npb_make "$1" cg S || return 1
  list npb_cg "$2" "$1/bin/cg.S.x"
}

# NPB MG: V-cycle multigrid on a 3D grid of ranks; face exchanges at every level, allreduces
# for the norms. Class W (128³, 4 iterations): S (32³) has next to no compute (under 0.01 s
# on one rank; W 0.08 s).
build_npb_mg() { # BUILD RUN
  npb_make "$1" mg W || return 1
  list npb_mg "$2" "$1/bin/mg.W.x"
}

# NPB FT: 3D FFT over a 1D or 2D decomposition (2D: row and column communicators split off);
# all-to-all transposes and a checksum reduction per iteration. Class W (128 x 128 x 32, 6
# iterations), the larger of two small ones. Also class A (256 x 256 x 128), for
# scripts/validate-extrapolation.sh: its layout stays 1D up to 128 ranks (W's turns 2D past 32,
# which no series of 4 to 16 ranks shows).
build_npb_ft() { # BUILD RUN
  npb_make "$1" ft A || return 1
  npb_make "$1" ft W || return 1
  list npb_ft "$2" "$1/bin/ft.W.x"
}

# NPB IS: bucketed integer sort; per iteration an allreduce of the bucket sizes and an
# all-to-all(v) of the keys. C. Class W (2^20 keys, 10 iterations): S's 2^16 keys are next to
# no compute.
build_npb_is() { # BUILD RUN
  npb_make "$1" is W || return 1
  list npb_is "$2" "$1/bin/is.W.x"
}

# NPB LU: SSOR solver of a 3D system over a 2D grid of ranks; a pipelined wavefront of small
# messages per k-plane in the lower and upper sweeps, face exchanges for the right-hand side,
# allreduces for the norms. Class W (33³): class S's 12³ is split too finely beyond 16 ranks
# (LU wants 3 points a side per rank). W's 300 iterations take 14 s at 4 ranks, over 2 min
# at 16: the input deck inputlu.data (read from where it runs) keeps W's size and time step
# but does 50 iterations (no reference answer then: class U, verification UNSUCCESSFUL).
build_npb_lu() { # BUILD RUN
  npb_make "$1" lu W || return 1
  cat > "$2/inputlu.data" << 'EOF'
c
c***controls printing of the progress of iterations: ipr    inorm
                                                      1      50
c
c***the maximum no. of pseudo-time steps to be performed: nitmax
                                                             50
c
c***magnitude of the time step: dt
                               1.5e-03
c
c***relaxation factor for SSOR iterations: omega
                                            1.2
c
c***tolerance levels for steady-state residuals: tolnwt(m),m=1,5
                             1.0e-08   1.0e-08   1.0e-08  1.0e-08  1.0e-08
c
c***number of grid points in xi and eta and zeta directions: nx   ny   nz
                                                            33  33  33
EOF
  list npb_lu "$2" "$1/bin/lu.W.x"
}

# name:directory in SRC_DIR
APPS="tealeaf:TeaLeaf_ref cloverleaf3d:CloverLeaf3D_ref minighost:miniGhost quicksilver:Quicksilver nekbone:Nekbone kripke:Kripke prk_transpose:Kernels
  prk_stencil:Kernels hpccg:HPCCG npb_cg:NPB3.4-MPI npb_mg:NPB3.4-MPI npb_ft:NPB3.4-MPI npb_is:NPB3.4-MPI
  npb_lu:NPB3.4-MPI"
: > "$OUT/apps.list"
failed=() found=0
for spec in $APPS; do
  name=${spec%%:*} dir=${spec#*:}
  if [ ! -d "$SRC/$dir" ]; then
    echo "real-apps: $name: skipped, no $SRC/$dir" >&2
    continue
  fi
  found=$((found + 1))
  rm -rf "${OUT:?}/$name" && mkdir -p "$OUT/$name/run" "$OUT/$name/src" && cp -a "$SRC/$dir/." "$OUT/$name/src"
  echo "real-apps: $name: building in $OUT/$name/src" >&2
  if ! ("build_$name" "$OUT/$name/src" "$OUT/$name/run") > "$OUT/$name/build.log" 2>&1; then
    echo "real-apps: $name: BUILD FAILED (log: $OUT/$name/build.log); its last lines:" >&2
    tail -n 15 "$OUT/$name/build.log" | sed 's/^/    /' >&2
    failed+=("$name")
  fi
done

echo "real-apps: $(wc -l < "$OUT/apps.list") built, listed in $OUT/apps.list" >&2
if [ "$found" = 0 ]; then
  echo "real-apps: none of the known applications is in $SRC" >&2
  exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "real-apps: failed: ${failed[*]}" >&2
  exit 1
fi
