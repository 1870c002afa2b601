# knit: the two commands.
#   make demo    set up, build, record the bundled parallel_for workload, print the report
#   make check   set up, build natively and for aarch64 and ppc64le, run every test
#   make bench   set up, build, run the benchmarks (they print ratios against a peer)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo check bench clean

all: build

deps:
	@bash ci/deps.sh

build: deps
	@bash ci/build.sh native $(BUILD) $(JOBS)

demo: build
	@bash ci/demo.sh $(BUILD)/native

bench: build
	@for b in $(BUILD)/native/bin/bench_*; do [ -x "$$b" ] && "$$b"; done

check: deps
	@bash ci/check.sh $(BUILD) $(JOBS)

clean:
	rm -rf $(BUILD)
