# dp_stream: PGXS build, plus the project's test, demo and bench entry points.

EXTENSION = dp_stream
# The version is the one of dp_stream.control (META.json is checked against
# it by test/docs.sh).  A fresh CREATE EXTENSION runs the full script of that
# version, a copy of the readable source sql/dp_stream.sql built here (as
# pgvector builds sql/vector--<version>.sql); 0.1.0's script and the update
# scripts bring older databases up to it.
EXTVERSION = $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = sql/$(EXTENSION)--0.1.0.sql $(wildcard sql/$(EXTENSION)--*--*.sql)
MODULE_big = dp_stream

# src/core: one directory per concern (noise, mechanisms, statistics, codec,
# sealing, planning) around the counter and mechanism interfaces at its top
CORE_DIRS = src/core $(sort $(dir $(wildcard src/core/*/*.c src/core/*/*.h)))
CORE_SOURCES = $(wildcard $(addsuffix /*.c,$(patsubst %/,%,$(CORE_DIRS))))
CORE_HEADERS = $(wildcard $(addsuffix /*.h,$(patsubst %/,%,$(CORE_DIRS))))
CORE_INCLUDES = $(addprefix -I,$(patsubst %/,%,$(CORE_DIRS)))
PG_SOURCES = $(wildcard src/pg/*.c)
OBJS = $(CORE_SOURCES:.c=.o) $(PG_SOURCES:.c=.o)

# libsodium must be linked through MODULE_big + SHLIB_LINK (MODULES ignores it)
SHLIB_LINK = -lsodium
PG_CPPFLAGS = $(CORE_INCLUDES)
# -Werror only in the project's own test build (scripts/test.sh passes
# DP_WERROR=-Werror): another compiler's new warnings must not break a
# packager's build.
DP_WERROR ?=
PG_CFLAGS = -Wall -Wextra $(DP_WERROR) -Wno-unused-parameter -Wno-missing-field-initializers \
            -Wno-sign-compare -Wno-implicit-fallthrough -Wno-cast-function-type

# make installcheck: the regression suite of test/regress/ (sql/ inputs,
# expected/ outputs) against an installed server, as a superuser (the tests
# set dp_stream.seed, create roles and reinstall the extension); run from
# the top of the tree (test/fixtures/ is read from there).  scripts/test.sh
# runs the same files in a throwaway cluster.
# every test, in alphabetical order as scripts/test.sh runs them
# (upgrade.out shows NOTICEs about objects earlier tests left)
REGRESS = $(sort $(basename $(notdir $(wildcard test/regress/sql/*.sql))))
REGRESS_OPTS = --inputdir=test/regress --outputdir=test/regress --dbname=dp_stream_regress

# set before the include: pgxs.mk tests it with ifdef while it is read
EXTRA_CLEAN = $(UNIT_TESTS) test/unit/*.asan test/unit/*.asan.log test/regress/results test/regress/regression.diffs \
              test/regress/regression.out \
              $(FUZZ_BUILD) bench/out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies; a struct change must rebuild all
$(OBJS): $(CORE_HEADERS) $(wildcard src/pg/*.h)

# C unit tests of src/core, built without PostgreSQL
UNIT_CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter $(CORE_INCLUDES)
UNIT_TESTS = $(patsubst test/unit/%.c,test/unit/%.bin,$(wildcard test/unit/test_*.c))

test/unit/%.bin: test/unit/%.c $(CORE_SOURCES) $(CORE_HEADERS) $(wildcard test/unit/*.h)
	$(CC) $(UNIT_CFLAGS) $(UNIT_EXTRA_CFLAGS) $(UNIT_NOISE_HOOK) -o $@ $< $(CORE_SOURCES) -lsodium -lm

unit: $(UNIT_TESTS)

# the exact calibration check reads the noise through the core's test hook
# (dp_counter.h); only this binary is built with it (a variable of its own,
# so that UNIT_EXTRA_CFLAGS given on the command line keeps it)
test/unit/test_calibration_lp.bin: UNIT_NOISE_HOOK = -DDP_TEST_NOISE_HOOK

# the unit tests under AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer
unit-sanitize:
	@for t in $(wildcard test/unit/test_*.c); do \
	  hook=; [ $$t = test/unit/test_calibration_lp.c ] && hook=-DDP_TEST_NOISE_HOOK; \
	  clang -std=c11 -O1 -g -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer $$hook $(CORE_INCLUDES) -o $${t%.c}.asan $$t $(CORE_SOURCES) -lsodium -lm || exit 1; \
	  $${t%.c}.asan > $${t%.c}.asan.log 2>&1; status=$$?; \
	  echo "$$t: $$(grep -c '^ok' $${t%.c}.asan.log) ok, $$(grep -c '^not ok' $${t%.c}.asan.log) not ok, exit $$status"; \
	  if [ $$status -ne 0 ]; then tail -30 $${t%.c}.asan.log; exit 1; fi; done

# the C unit tests under valgrind's memcheck: an invalid access or a
# definite leak fails the target.  Slow (each test about 30 times longer).
# valgrind computes long double at double precision, so test_blt's
# long-double reference checks that sit at the bound, and test_laplace_table's
# check of the certified exp against expl, report "not ok" there: those are
# listed, not failed.  The audit runs 10,000 runs there, too few for its
# sharpness checks (listed too): memcheck is what this target is for.
unit-valgrind: $(UNIT_TESTS)
	@failed=0; for t in $(UNIT_TESTS); do \
	  DP_AUDIT_RUNS=10000 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    $$t > $${t%.bin}.valgrind.log 2>&1; status=$$?; \
	  echo "$$t: $$(grep -c '^ok' $${t%.bin}.valgrind.log) ok, $$(grep -c '^not ok' $${t%.bin}.valgrind.log) not ok, exit $$status"; \
	  if [ $$status -eq 99 ]; then grep '^==' $${t%.bin}.valgrind.log | head -30; failed=1; fi; done; \
	if [ $$failed -ne 0 ]; then echo "unit-valgrind: memcheck errors"; exit 1; fi; echo "unit-valgrind: no memcheck errors"

# the privacy audit (test/unit/audit.h) with 2,000,000 runs per stream, and
# the same audit of builds that halve one kind's noise, each of which must
# fail its kind's cases (AUDIT_BROKEN_KINDS: every kind)
audit: test/unit/test_audit.bin
	DP_AUDIT_RUNS=2000000 test/unit/test_audit.bin

# every kind of the registry (its enum name in dp_mechanism_list.h, in lower case)
AUDIT_BROKEN_KINDS ?= $(shell sed -n 's/^DP_MECHANISM_ENTRY.\([A-Z_]*\),.*/\1/p' \
                        src/core/mechanisms/dp_mechanism_list.h | tr A-Z a-z)

audit-broken:
	@mkdir -p $(FUZZ_BUILD)
	@missed=0; for kind in $(AUDIT_BROKEN_KINDS); do \
	  upper=$$(echo $$kind | tr a-z A-Z); \
	  $(CC) $(UNIT_CFLAGS) -DDP_TEST_HALVE_NOISE_OF=DP_MECHANISM_$$upper -o $(FUZZ_BUILD)/audit_broken_$$kind \
	    test/unit/test_audit.c $(CORE_SOURCES) -lsodium -lm || exit 2; \
	  if DP_AUDIT_ONLY=$$kind $(FUZZ_BUILD)/audit_broken_$$kind > $(FUZZ_BUILD)/audit_broken_$$kind.log; then \
	    echo "audit-broken: $$kind with half its noise PASSED the audit"; missed=1; \
	  else echo "audit-broken: $$kind with half its noise fails: $$(grep -c '^not ok' $(FUZZ_BUILD)/audit_broken_$$kind.log) of $$(grep -c 'ok [0-9]' $(FUZZ_BUILD)/audit_broken_$$kind.log) checks"; fi; \
	done; \
	if [ $$missed -ne 0 ]; then exit 1; fi; echo "audit-broken: the audit fails every build with halved noise, as it must"

# the exact calibration check (test/unit/test_calibration_lp.c) of builds
# that break the calibration on purpose, each of which it must fail: every
# kind with halved noise (as audit-broken), one kind calibrated to one step
# whatever the privacy unit, the expiring trees' intervals usable one step
# early, the rolling tree calibrated without its top level, and the
# pan-private closing terms at half scale (the DP_TEST_
# switches of src/core, never shipped)
LP_BROKEN_BUILDS = $(foreach kind,$(AUDIT_BROKEN_KINDS),halve_$(kind):$(kind):-DDP_TEST_HALVE_NOISE_OF=DP_MECHANISM_$(shell echo $(kind) | tr a-z A-Z)) \
	ignore_person_binary:binary:-DDP_TEST_IGNORE_PERSON_OF=DP_MECHANISM_BINARY \
	ignore_person_two_level:two_level:-DDP_TEST_IGNORE_PERSON_OF=DP_MECHANISM_TWO_LEVEL \
	expiring_one_step_early:expiring:-DDP_TEST_EXPIRING_ONE_STEP_EARLY \
	rolling_one_level_short:rolling:-DDP_TEST_ROLLING_ONE_LEVEL_SHORT \
	halve_closing_noise::-DDP_TEST_HALVE_CLOSING_NOISE

lp-broken:
	@mkdir -p $(FUZZ_BUILD)
	@missed=0; for build in $(LP_BROKEN_BUILDS); do \
	  name=$${build%%:*}; rest=$${build#*:}; only=$${rest%%:*}; flag=$${rest#*:}; \
	  $(CC) $(UNIT_CFLAGS) -DDP_TEST_NOISE_HOOK $$flag -o $(FUZZ_BUILD)/lp_broken_$$name \
	    test/unit/test_calibration_lp.c $(CORE_SOURCES) -lsodium -lm || exit 2; \
	  if DP_LP_ONLY=$$only $(FUZZ_BUILD)/lp_broken_$$name > $(FUZZ_BUILD)/lp_broken_$$name.log; then \
	    echo "lp-broken: $$name PASSED the exact check"; missed=1; \
	  else echo "lp-broken: $$name fails $$(grep -c '^not ok' $(FUZZ_BUILD)/lp_broken_$$name.log) of $$(grep -c 'ok [0-9]' $(FUZZ_BUILD)/lp_broken_$$name.log) checks: $$(grep -m1 '^# first failure' $(FUZZ_BUILD)/lp_broken_$$name.log | cut -c18-)"; fi; \
	done; \
	if [ $$missed -ne 0 ]; then exit 1; fi; echo "lp-broken: the exact check fails every broken build, as it must"

# libFuzzer harnesses of src/core under ASan + UBSan (test/fuzz/README.md).
# FUZZ_CORE and FUZZ_BUILD may point at a patched copy of the core and a
# build directory of its own.
FUZZ_CC ?= clang-14
FUZZ_CORE ?= src/core
FUZZ_BUILD ?= test/fuzz/build
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = $(patsubst test/fuzz/%.c,%,$(wildcard test/fuzz/fuzz_*.c))
FUZZ_CFLAGS = -std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-parameter \
              -Wno-unused-function $(FUZZ_CORE_INCLUDES) -Itest/fuzz
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_COVERAGE = -fprofile-instr-generate -fcoverage-mapping
FUZZ_CORE_SOURCES = $(wildcard $(FUZZ_CORE)/*.c $(FUZZ_CORE)/*/*.c)
FUZZ_CORE_HEADERS = $(wildcard $(FUZZ_CORE)/*.h $(FUZZ_CORE)/*/*.h)
FUZZ_CORE_INCLUDES = $(addprefix -I,$(patsubst %/,%,$(sort $(dir $(FUZZ_CORE_HEADERS)))))
FUZZ_ASAN_OBJS = $(patsubst $(FUZZ_CORE)/%.c,$(FUZZ_BUILD)/asan/%.o,$(FUZZ_CORE_SOURCES))
FUZZ_COV_OBJS = $(patsubst $(FUZZ_CORE)/%.c,$(FUZZ_BUILD)/cov/%.o,$(FUZZ_CORE_SOURCES))
FUZZ_BINARIES = $(addprefix $(FUZZ_BUILD)/,$(FUZZ_TARGETS))
FUZZ_COV_BINARIES = $(addsuffix .cov,$(FUZZ_BINARIES))

$(FUZZ_ASAN_OBJS): $(FUZZ_BUILD)/asan/%.o: $(FUZZ_CORE)/%.c $(FUZZ_CORE_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE) -c -o $@ $<

$(FUZZ_COV_OBJS): $(FUZZ_BUILD)/cov/%.o: $(FUZZ_CORE)/%.c $(FUZZ_CORE_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COVERAGE) -c -o $@ $<

$(FUZZ_BINARIES): $(FUZZ_BUILD)/%: test/fuzz/%.c $(wildcard test/fuzz/*.h) $(FUZZ_ASAN_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SANITIZE) -o $@ $< $(FUZZ_ASAN_OBJS) -lsodium -lm

$(FUZZ_COV_BINARIES): $(FUZZ_BUILD)/%.cov: test/fuzz/%.c $(wildcard test/fuzz/*.h) $(FUZZ_COV_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_COVERAGE) -o $@ $< $(FUZZ_COV_OBJS) -lsodium -lm

$(FUZZ_BUILD)/make_corpus: test/fuzz/make_corpus.c $(wildcard test/fuzz/*.h) $(FUZZ_CORE_SOURCES) $(FUZZ_CORE_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_CORE_SOURCES) -lsodium -lm

fuzz-build: $(FUZZ_BINARIES)

# fuzz every target for FUZZ_SECONDS; new inputs go to a scratch directory,
# crashes to test/fuzz/crashes/
fuzz: $(FUZZ_BINARIES)
	@test/fuzz/run.sh fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# every file of the repository corpus once; TAP, one line per target
fuzz-replay: $(FUZZ_BINARIES)
	@test/fuzz/run.sh replay $(FUZZ_BUILD) 0 $(FUZZ_TARGETS)

# line, function and region coverage of the core by the repository corpus
fuzz-coverage: $(FUZZ_COV_BINARIES)
	@test/fuzz/run.sh coverage $(FUZZ_BUILD) 0 $(FUZZ_TARGETS) -- $(FUZZ_CORE_SOURCES)

# (re)writes the generated seeds of test/fuzz/corpus/ (named by SHA-1)
fuzz-corpus: $(FUZZ_BUILD)/make_corpus
	$(FUZZ_BUILD)/make_corpus test/fuzz/corpus

# the compiler flags and sources of the core, for scripts that build on it
core-flags:
	@echo $(CORE_INCLUDES) $(CORE_SOURCES)

# the layers of src/ only point down: no cycle between modules (includes and
# calls read from the object files), no PostgreSQL header or call in
# src/core (test/layers.sh, one TAP line per check)
layers: $(OBJS)
	@test/layers.sh

.PHONY: core-flags layers unit unit-sanitize unit-valgrind audit audit-broken lp-broken test demo bench bench-rolling setup fuzz fuzz-build fuzz-replay fuzz-coverage fuzz-corpus
setup:
	scripts/setup.sh

test:
	scripts/test.sh

demo:
	scripts/demo.sh

bench:
	bench/run.sh

# issue 30: rolling windows against differences of running releases, exactly
# (bench/rolling.sh, also in make bench's run; not in make test)
bench-rolling:
	bench/rolling.sh


sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@
