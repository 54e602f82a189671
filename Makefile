# dp_stream: PGXS build, plus the project's test, demo and bench entry points.

EXTENSION = dp_stream
DATA = sql/dp_stream--0.1.0.sql sql/dp_stream--0.1.0--0.2.0.sql sql/dp_stream--0.2.0--0.3.0.sql \
       sql/dp_stream--0.3.0--0.4.0.sql
MODULE_big = dp_stream

CORE_SOURCES = $(wildcard src/core/*.c)
PG_SOURCES = $(wildcard src/pg/*.c)
OBJS = $(CORE_SOURCES:.c=.o) $(PG_SOURCES:.c=.o)

# libsodium must be linked through MODULE_big + SHLIB_LINK (MODULES ignores it)
SHLIB_LINK = -lsodium
PG_CPPFLAGS = -Isrc/core
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
            -Wno-sign-compare -Wno-implicit-fallthrough -Wno-cast-function-type \
            -Wno-clobbered

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies; a struct change must rebuild all
$(OBJS): $(wildcard src/core/*.h) $(wildcard src/pg/*.h)

# C unit tests of src/core, built without PostgreSQL
UNIT_CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Isrc/core
UNIT_TESTS = $(patsubst test/unit/%.c,test/unit/%.bin,$(wildcard test/unit/test_*.c))

test/unit/%.bin: test/unit/%.c $(CORE_SOURCES) $(wildcard src/core/*.h) test/unit/tap.h
	$(CC) $(UNIT_CFLAGS) $(UNIT_EXTRA_CFLAGS) -o $@ $< $(CORE_SOURCES) -lsodium -lm

unit: $(UNIT_TESTS)

# the unit tests under AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer
unit-sanitize:
	@for t in $(wildcard test/unit/test_*.c); do \
	  clang -std=c11 -O1 -g -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer -Isrc/core -o $${t%.c}.asan $$t $(CORE_SOURCES) -lsodium -lm || exit 1; \
	  $${t%.c}.asan > $${t%.c}.asan.log 2>&1; status=$$?; \
	  echo "$$t: $$(grep -c '^ok' $${t%.c}.asan.log) ok, $$(grep -c '^not ok' $${t%.c}.asan.log) not ok, exit $$status"; \
	  if [ $$status -ne 0 ]; then tail -30 $${t%.c}.asan.log; exit 1; fi; done

.PHONY: unit unit-sanitize test demo bench setup
setup:
	scripts/setup.sh

test:
	scripts/test.sh

demo:
	scripts/demo.sh

bench:
	bench/run.sh

EXTRA_CLEAN = $(UNIT_TESTS) test/unit/*.asan test/unit/*.asan.log results regression.diffs regression.out
