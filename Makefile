# psins top-level build. `make help` lists the targets.
SHELL := /bin/bash
CARGO ?= cargo
MPIRUN ?= mpirun
RELEASE := target/release
APPS := mpi-test-apps/bin
DEMO := build/demo

.PHONY: all setup build apps test bench overhead demo clean help fmt lint

all: build apps ## release build of everything: libpsinstrace.so, the tools, the test apps

setup: ## install MPICH and gfortran from Debian's packages if missing
	bash scripts/setup.sh

build:
	$(CARGO) build --release --workspace

apps:
	$(MAKE) -C mpi-test-apps

test: setup build apps ## every test: unit, property, fuzz-style, end to end under real mpirun
	$(CARGO) test --release --workspace

bench: build ## speed benchmarks; figures go to docs/performance.md
	$(CARGO) bench -p psins-formats --bench codec
	@if [ -f simulator/benches/replay.rs ]; then $(CARGO) bench -p psins-sim --bench replay; fi
	@if [ -x scripts/bench-consolidate.sh ]; then scripts/bench-consolidate.sh; fi

overhead: build apps ## tracer overhead: traced vs untraced runs, added ns per call
	bash tracer-cdylib/overhead.sh

demo: setup build apps ## the README's first command: trace, consolidate, simulate, compare
	bash scripts/demo.sh

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) clippy --workspace --all-targets

clean:
	$(CARGO) clean
	$(MAKE) -C mpi-test-apps clean
	rm -rf build psins-trace

help:
	@grep -E '^[a-z]+:.*## ' Makefile | sed 's/:.*## /\t/'
