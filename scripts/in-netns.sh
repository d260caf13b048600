#!/usr/bin/env bash
# Launcher wrapper for scripts/netns-link.sh: runs the rank (PMI_RANK under MPICH's hydra,
# OMPI_COMM_WORLD_RANK under Open MPI) inside namespace psins<rank>. The rank keeps its
# launcher connection: hydra hands it over as an inherited file descriptor, not an address.
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}
[ -n "$r" ] || { echo "in-netns: no PMI_RANK or OMPI_COMM_WORLD_RANK: run it under mpirun" >&2; exit 2; }
exec ip netns exec "psins$r" "$@"
