# rtolab: `make demo` and `make test` set everything up from a fresh clone.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test test-all bench bench-pgo validate build clean fuzz

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.8,<2" "numpy>=1.26" "scipy>=1.11" "dask[distributed]>=2024.1" "polars>=1.0" "pyarrow>=15" \
		"matplotlib>=3.8" "typer>=0.12,<0.29" "rich>=13" "pytest>=8" "pytest-xdist>=3.5" "mypy>=1.10" "duckdb>=1.0"
	touch $@

# `make build PGO=1` builds the extension with profile-guided optimisation: tools/pgo/profile
# trains an instrumented build on the benchmark and coverage scenarios (tools/pgo/scenarios/)
# and writes the profile's path (empty when the toolchain has no llvm-profdata); the profile
# is made again only when the Rust sources change, and then only rtolab's own crates rebuild
# (tools/pgo/rustc-wrapper). It is what long studies and `make bench` want (a faster core),
# and it compiles twice: `make demo` and `make test` build without it by default, so a fresh
# clone is running in under 3 minutes. `cargo test` shares the extension's target directory.
PGO ?= 0
PGO_PROFILE := target/pgo/profile-path
RUST_SOURCES := $(shell find crates tools/pgo -type f -not -path '*/snapshots/*') Cargo.lock Cargo.toml
PGO_CARGO = RUSTC_WRAPPER=$(abspath tools/pgo/rustc-wrapper) RTOLAB_PGO_USE="$(if $(filter 1,$(PGO)),$$(cat $(PGO_PROFILE)))" \
	CARGO_TARGET_DIR=target/release-pgo

$(PGO_PROFILE): $(VENV)/.installed $(RUST_SOURCES)
	tools/pgo/profile

build: $(VENV)/.installed $(if $(filter 1,$(PGO)),$(PGO_PROFILE))
	$(PGO_CARGO) maturin develop --release --quiet --manifest-path crates/rtolab-py/Cargo.toml

demo: build
	rtolab demo --out demo-out

# rtolab-py has no Rust tests (`test = false`); naming it makes cargo resolve the extension's
# features, so the test build reuses every crate `make build` compiled (crates/rtolab-py/Cargo.toml).
CARGO_TEST_PACKAGES := -p rtolab-sim -p rtolab-emu -p rtolab-py

# pytest runs on every core (pytest-xdist); the checks that run in real time share one worker
# (tests/conftest.py). `make test PYTEST_WORKERS=` runs them in one process.
PYTEST_WORKERS ?= -n auto --dist loadgroup

test: build
	$(PGO_CARGO) cargo test $(CARGO_TEST_PACKAGES) --release
	$(PY) -m mypy.stubtest rtolab._core --allowlist .ci/stubtest-allowlist
	$(PY) -m mypy
	$(PY) -m pytest -m "not slow" $(PYTEST_WORKERS)

test-all: build
	$(PGO_CARGO) cargo test $(CARGO_TEST_PACKAGES) --release
	$(PY) -m pytest $(PYTEST_WORKERS)

# The long run of the property tests (issue 13 §6); `cargo test` runs a fixed-seed slice.
# Needs no Python. Another seed explores other cases: `make fuzz FUZZ_SEED=7`. The memory
# cap turns a sender that loops sending (a hang inside one event) into an abort, not an
# out-of-memory machine; RTOLAB_FUZZ_PEEK=1 prints each scenario before it runs.
FUZZ_CASES ?= 100000
FUZZ_SEED ?= 1
FUZZ_MEMORY_KB ?= 4000000
fuzz:
	cargo test --release -p rtolab-sim --test scenarios --no-run
	ulimit -v $(FUZZ_MEMORY_KB) && RTOLAB_FUZZ_CASES=$(FUZZ_CASES) RTOLAB_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test --release -p rtolab-sim --test scenarios -- fuzz:: --nocapture

# Benchmarks always measure the profile-guided build (the figures in README's Speed section).
bench:
	$(MAKE) PGO=1 bench-pgo

bench-pgo: build
	$(PGO_CARGO) cargo bench -p rtolab-sim
	rtolab bench

clean:
	rm -rf $(VENV) target demo-out

# Cross-checks against independent references: tshark reads rtolab's pcaps; ns-2.35 runs
# live beside the ns2-sack1 profile; the kernel cases of validate/kernel/ run through
# `rtolab emulate` beside the linux profile (root) and ns-3.44, CUBIC's window beside the
# kernel's; BIC and Westwood+ run beside
# ns-3.44's; all write docs/validation.md. CoDel, PIE and FQ-CoDel run beside ns-3.44's queue
# discs and write docs/aqm.md's tables. ns-3's bindings are needed here only.
validate: build
	command -v tshark >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark)
	command -v ns >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2)
	$(PY) -m pip install --quiet "ns3==3.44.post0"
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(PY) -m pip install --quiet playwright
	$(PY) -m pytest tests/test_pcap.py tests/test_report.py -v
	python3 validate/ns2/run_ns2.py --selftest
	$(PY) validate/ns2_compare.py --out docs/validation.md
	$(PY) validate/iw10_ns2.py --reps 20 --out "$$(mktemp -d)" --doc docs/iw10-ns2.md
	$(PY) validate/kernel_compare.py --out docs/validation.md
	$(PY) validate/cubic_kernel.py --out docs/validation.md
	$(PY) validate/rto_series.py --out docs/validation.md
	$(PY) validate/ns3/ns3_run.py --selftest
	$(PY) validate/ns3/cc_compare.py --out docs/validation.md
	$(PY) validate/ns3/udp_compare.py --out docs/validation.md
	$(PY) validate/emodel_check.py --out docs/validation.md
	$(PY) validate/udp_kernel.py --out docs/validation.md
	$(PY) validate/quic_emulate.py --out docs/validation.md
	$(PY) validate/ns3/aqm_compare.py --out docs/aqm.md
	$(PY) validate/ns3/aqm_compare.py --ns3-cc ns3::TcpNewReno --begin "<!-- aqm-ns3-newreno:begin -->" --no-figure --out docs/aqm.md
	$(PY) validate/cc_hsdpa_kernel.py --out docs/cc-hsdpa.md
	grep -qw cubic /proc/sys/net/ipv4/tcp_allowed_congestion_control || sysctl -q -w net.ipv4.tcp_allowed_congestion_control="$$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control) cubic"
	$(PY) validate/drill/results.py --out docs/drill.md
