# psins top-level build. `make help` lists the targets.
SHELL := /bin/bash
CARGO ?= cargo
MPIRUN ?= mpirun
# The cargo profile `make build` and `make install` use, and where it puts the programs
# (`make install PROFILE=test-fast`: the tests install what they built, without a release build).
PROFILE ?= release
RELEASE ?= target/$(if $(filter dev,$(PROFILE)),debug,$(PROFILE))
# The tests' cargo profile: release's code without LTO (Cargo.toml says why).
TEST_PROFILE := test-fast
APPS := mpi-test-apps/bin
DEMO := build/demo

.PHONY: all setup build apps msrv test bench overhead validate validate-extrapolation demo install clean help fmt lint

all: build apps ## release build of everything: libpsinstrace.so, the tools, the test apps

setup: ## install MPICH, gfortran, SimGrid and libotf2 from Debian's packages if missing
	bash scripts/setup.sh

build:
	$(CARGO) build --profile $(PROFILE) --workspace

apps:
	$(MAKE) -C mpi-test-apps

msrv: ## the workspace checked with the oldest Rust Cargo.toml declares (rust-version, from rustup), and psins-interop without libotf2; CI runs it before `make test`
	bash scripts/msrv.sh

test: setup apps ## every test: unit, property, fuzz-style, end to end under real mpirun (MPICH, and Open MPI when installed), a sweep under Slurm (when installed), the --plot charts rendered by Chromium (when installed)
	$(CARGO) build --workspace --profile $(TEST_PROFILE)
	PSINS_REQUIRE_MPI=1 $(CARGO) test --workspace --profile $(TEST_PROFILE)
	PSINS_REQUIRE_MPI=1 PSINS_TEST_PROFILE=$(TEST_PROFILE) bash scripts/test-openmpi.sh
	BIN=$(CURDIR)/target/$(TEST_PROFILE) bash scripts/slurm-sweep-test.sh
	BIN=$(CURDIR)/target/$(TEST_PROFILE) bash scripts/plot-check.sh

bench: build ## speed benchmarks (several minutes, ~1.5 GB of scratch traces); figures go to docs/performance.md
	$(CARGO) bench -p psins-formats --bench codec
	$(CARGO) bench -p psins-consolidate --bench throughput
	$(CARGO) bench -p psins-interop --bench interop
	$(CARGO) bench -p psins-interop --bench dumpi_import
	bash scripts/trace-sizes.sh
	$(CARGO) bench -p psins-sim --bench replay
	bash scripts/bench-torus.sh
	bash scripts/bench-topologies.sh

overhead: build apps ## tracer overhead: micro-loops (ns per call) and whole apps (traced vs untraced)
	bash tracer-cdylib/overhead.sh
	bash scripts/overhead-apps.sh

validate: build apps ## predicted versus measured run time of every test app on this host
	bash scripts/validate.sh
	@if command -v mpirun.openmpi >/dev/null; then MPI=openmpi OUT=build/validation-openmpi bash scripts/validate.sh; \
	else echo "validate: Open MPI not installed (no mpirun.openmpi): its table skipped" >&2; fi

validate-extrapolation: build apps ## extrapolated traces against real ones at 32 and 64 ranks (MPI=openmpi: traced under Open MPI; docs/extrapolate.md)
	bash scripts/validate-extrapolation.sh

demo: setup build apps ## the README's first command: trace, consolidate, simulate, compare
	bash scripts/demo.sh

PREFIX ?= /usr/local
TOOLS := psins-sim psins-consolidate psins-dump psins-synth psins-calibrate psins-export psins-import psins-extrapolate
SHARE = $(DESTDIR)$(PREFIX)/share
# Installed programs are stripped (GNU's install-strip); a packager that splits debug info
# into its own package builds with its own debug flags and says `make install INSTALL_STRIP=`.
# Man pages and completions come from each tool's own command-line definition (psins-cli).
INSTALL_STRIP ?= -s
install: build ## install the tools, libpsinstrace.so, the calibration worker, configs/, man pages and shell completions under PREFIX (default /usr/local), stripped
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/libexec/psins $(SHARE)/psins/configs
	install -d $(SHARE)/man/man1 $(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	install $(INSTALL_STRIP) -m 755 $(addprefix $(RELEASE)/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(RELEASE)/libpsinstrace.so $(DESTDIR)$(PREFIX)/lib/
	$(if $(INSTALL_STRIP),strip --strip-debug $(DESTDIR)$(PREFIX)/lib/libpsinstrace.so)
	install $(INSTALL_STRIP) -m 755 "$$($(RELEASE)/psins-calibrate --print-worker)" $(DESTDIR)$(PREFIX)/libexec/psins/psins-calib-worker
	install -m 644 configs/*.toml $(SHARE)/psins/configs/
	set -e; for t in $(TOOLS); do \
	  $(RELEASE)/$$t --generate-man $(SHARE)/man/man1; \
	  $(RELEASE)/$$t --generate-completions bash > $(SHARE)/bash-completion/completions/$$t; \
	  $(RELEASE)/$$t --generate-completions zsh > $(SHARE)/zsh/site-functions/_$$t; \
	  $(RELEASE)/$$t --generate-completions fish > $(SHARE)/fish/vendor_completions.d/$$t.fish; \
	done

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean
	$(MAKE) -C mpi-test-apps clean
	rm -rf build psins-trace

help:
	@grep -E '^[a-z]+:.*## ' Makefile | sed 's/:.*## /\t/'
