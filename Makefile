# knit: the two commands.
#   make demo    set up, build, record the bundled parallel_for workload, print the report
#   make check   set up, build natively and for aarch64, ppc64le and ppc64, run every test
#   make bench   set up, build, run the benchmarks (they print ratios against a peer)
#   make matrix  set up, build the three trees, run every workload in every cell of the
#                support matrix (harness/matrix; MATRIX_ARGS=--quick for x86_64 + aarch64)
#   make check-full  check, then the full matrix
#   make fuzz    set up, build, run each libFuzzer target (harness/fuzz) for
#                FUZZ_RUNS executions (default 10 million) or FUZZ_SECONDS
#                seconds (default 1200), whichever comes first
#   make check-asan  the native suite under ASan and UBSan, in $(BUILD)/asan
#   make check-tsan  the native suite under TSan, in $(BUILD)/tsan
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo check bench matrix check-full fuzz check-asan check-tsan clean

all: build

deps:
	@bash ci/deps.sh

build: deps
	@bash ci/build.sh native $(BUILD) $(JOBS)

demo: build
	@bash ci/demo.sh $(BUILD)/native

# Every benchmark but the child programs the drivers time; fails if one
# fails. A benchmark that exits 77 could not run here and has said why.
bench: build
	@rc=0; for b in $(BUILD)/native/bin/bench_*; do \
	  case "$$b" in *_child) continue ;; esac; \
	  [ -x "$$b" ] || continue; \
	  echo "== $$(basename $$b)"; "$$b"; s=$$?; \
	  [ $$s -eq 0 ] || [ $$s -eq 77 ] || rc=1; \
	done; exit $$rc

check: deps
	@bash ci/check.sh $(BUILD) $(JOBS)

MATRIX_ARGS ?=
TREES = native aarch64 ppc64le ppc64

# Builds every tree as ci/check.sh does (a log per tree), stopping at the
# first that fails: the matrix would otherwise run a stale tree.
matrix: deps
	@mkdir -p $(BUILD)
	@for t in $(TREES); do \
	  echo "== $$t: build"; \
	  bash ci/build.sh $$t $(BUILD) $(JOBS) >$(BUILD)/build-$$t.log 2>&1 || { \
	    tail -n 40 $(BUILD)/build-$$t.log; echo "matrix: building $$t failed (log: $(BUILD)/build-$$t.log)"; exit 1; }; \
	done
	@bash harness/matrix --build $(BUILD) $(MATRIX_ARGS)

# check builds every tree; the matrix then runs on them. Both always run.
check-full: deps
	@rc=0; bash ci/check.sh $(BUILD) $(JOBS) || rc=1; \
	echo; echo "== matrix"; bash harness/matrix --build $(BUILD) || rc=1; exit $$rc

FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 1200
FUZZ_TARGETS = read_file golden

# Each target from its seed corpus; a finding's input is kept in
# $(BUILD)/fuzz-findings. Fails when a target finds something or is missing.
fuzz: build
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  b=$(BUILD)/native/bin/fuzz_$$t; \
	  [ -x "$$b" ] || { echo "fuzz: $$b is not built (clang-14 and libclang-rt-14-dev are needed)"; rc=1; continue; }; \
	  FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_FINDINGS=$(CURDIR)/$(BUILD)/fuzz-findings \
	    bash harness/fuzz/run_fuzz.sh $$t "$$b" harness/fuzz/corpus/$$t || rc=1; \
	done; exit $$rc

# The sanitizers' runs (ci/check-sanitized.sh says what they cover).
check-asan: deps
	@bash ci/check-sanitized.sh asan $(BUILD) $(JOBS)

check-tsan: deps
	@bash ci/check-sanitized.sh tsan $(BUILD) $(JOBS)

clean:
	rm -rf $(BUILD)
