# upskill — plain GNU make + pkg-config.
#
#   make                 build build/upskill
#   make check           unit + end-to-end tests
#   make sanitize        the whole suite under ASan+UBSan (in build-san/)
#   make lint            clang-format check and banned functions
#   make check-headers   each public header compiles alone (lint runs it)
#   make check-symbols   every exported symbol is up_-prefixed (lint too)
#   make fuzz            libFuzzer targets (clang; not part of check)
#   make bench           benchmarks in bench/
#   make clis            the coding-agent CLIs from npm, pinned (build-clis/)
#   make install         PREFIX=/usr/local DESTDIR=
#   DEVELOPER=1          warnings become errors (CI sets it)

CC       ?= cc
PREFIX   ?= /usr/local
BUILD    ?= build
PKGS      = libcurl jansson yaml-0.1 sqlite3 libpcre2-8 libutf8proc
TEST_PKGS = criterion
FAKE_PKGS = libmicrohttpd jansson

CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -qi clang && echo 1)

WARN = -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion \
       -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
       -Wwrite-strings -Wimplicit-fallthrough -Wnull-dereference
ifneq ($(CC_IS_CLANG),1)
WARN += -Wjump-misses-init -Wlogical-op
endif
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif

OPT      ?= -O2 -g
SANFLAGS  =
ifeq ($(SAN),1)
SANFLAGS  = -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
OPT       = -O1 -g
endif

CPPFLAGS += -Iinclude -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# The library's private headers (src/lib/PART/*.h, src/util/*.h, ...):
# on every include path but src/cli's, which sees include/ only, so the
# command line can reach nothing but the public API (issue 33).
PRIV_CPPFLAGS = -Isrc
CFLAGS   += -std=c11 $(OPT) $(WARN) $(SANFLAGS) -MMD -MP \
            $(shell pkg-config --cflags $(PKGS))
LDFLAGS  += $(SANFLAGS)
LIBS      = $(shell pkg-config --libs $(filter-out libcurl,$(PKGS))) -ldl -lpthread -lm

LIB_SRC  = $(wildcard src/util/*.c src/lib/*/*.c src/loop/*.c src/providers/*.c)
CLI_SRC  = $(wildcard src/cli/*.c)
UNIT_SRC = $(wildcard tests/unit/*.c)
FAKE_SRC = $(wildcard tests/fake/*.c)
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC = $(wildcard bench/*.c)

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ = $(UNIT_SRC:%.c=$(BUILD)/%.o)
FAKE_OBJ = $(FAKE_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ = $(BENCH_SRC:%.c=$(BUILD)/%.o)

# Built-in prompts, embedded in the library (scripts/embed.sh).
PROMPTS  = $(sort $(wildcard prompts/*.md))
LIB_OBJ += $(BUILD)/gen/prompts.o

BIN      = $(BUILD)/upskill
LIBA     = $(BUILD)/libupskill.a
UNIT_BIN = $(BUILD)/test-unit
FAKE_BIN = $(BUILD)/fake-llm
BENCH_BIN = $(BUILD)/bench-transport

.PHONY: all check check-unit check-e2e sanitize lint fuzz bench install \
        print-depflags print-cli-depflags check-headers check-symbols clean demo demo-agent demo-cuda clis
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PRIV_CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/src/cli/%.o: PRIV_CPPFLAGS =

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/gen/prompts.c: $(PROMPTS) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $(PROMPTS) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/prompts.o: $(BUILD)/gen/prompts.c
	$(CC) $(CPPFLAGS) $(PRIV_CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BIN): $(CLI_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LIBS)

$(BUILD)/tests/unit/%.o: CFLAGS += $(shell pkg-config --cflags $(TEST_PKGS))
$(UNIT_BIN): $(UNIT_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(LIBA) $(LIBS) \
	    $(shell pkg-config --libs $(TEST_PKGS))

$(BUILD)/tests/fake/%.o: CFLAGS += $(shell pkg-config --cflags $(FAKE_PKGS))
$(FAKE_BIN): $(FAKE_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(FAKE_OBJ) $(LIBA) $(LIBS) \
	    $(shell pkg-config --libs $(FAKE_PKGS))

$(BENCH_BIN): $(BENCH_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(LIBA) $(LIBS)

check: check-unit check-e2e

check-unit: $(UNIT_BIN) $(if $(FAKE_SRC),$(FAKE_BIN))
	FAKE_LLM=$(abspath $(FAKE_BIN)) $(UNIT_BIN) --jobs 2

E2E_ENV = UPSKILL=$(abspath $(BIN)) FAKE_LLM=$(abspath $(FAKE_BIN)) \
          TOP=$(abspath .) NO_COLOR=

check-e2e: $(BIN) $(if $(FAKE_SRC),$(FAKE_BIN))
	$(E2E_ENV) prove -j2 tests/e2e/t*.sh

sanitize:
	$(MAKE) BUILD=build-san SAN=1 check

lint: check-headers check-symbols
	sh scripts/lint.sh

# Every global symbol of the library is up_-prefixed, but the shrinking
# list of old names in scripts/symbols-allow.txt (scripts/symbols.sh).
check-symbols: $(LIBA)
	sh scripts/symbols.sh $(LIBA)

# Every public header compiles alone: an empty translation unit including
# only it, with the project's flags and -Werror (a header that leans on
# what its includer happened to include first fails here), and with
# include/ alone on the path, as src/cli sees it (a public header that
# includes a private one fails here).
HEADERS = $(sort $(wildcard include/upskill/*.h))
check-headers:
	@bad=0; for h in $(HEADERS); do \
	    printf '#include "upskill/%s"\ntypedef int up_tu_;\n' "$${h##*/}" | \
	    $(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) -Werror \
	        -fsyntax-only -x c - || { echo "check-headers: $$h" >&2; bad=1; }; \
	done; exit $$bad

# The flags that decide what a source includes (scripts/arrows.sh runs
# $(CC) -MM with them to read the real include closures).
print-depflags:
	@echo $(CPPFLAGS) $(PRIV_CPPFLAGS) $(filter -I% -D% -std=%,$(CFLAGS))

# The same for src/cli (include/ only; scripts/api-size.sh).
print-cli-depflags:
	@echo $(CPPFLAGS) $(filter -I% -D% -std=%,$(CFLAGS))

FUZZ_CFLAGS = -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=all \
              $(CPPFLAGS) $(PRIV_CPPFLAGS) $(shell pkg-config --cflags $(PKGS))
fuzz:
	@mkdir -p build-fuzz
	$(MAKE) BUILD=build-fuzz CC=clang \
	    SANFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" build-fuzz/libupskill.a
	for f in $(FUZZ_SRC); do \
	    n=$$(basename $$f .c); \
	    clang $(FUZZ_CFLAGS) $$f build-fuzz/libupskill.a $(LIBS) \
	        -o build-fuzz/$$n || exit 1; \
	done

bench: $(BIN) $(if $(FAKE_SRC),$(FAKE_BIN)) $(if $(BENCH_SRC),$(BENCH_BIN))
	sh bench/run.sh

clis:
	sh scripts/clis.sh build-clis

demo: $(BIN) $(if $(FAKE_SRC),$(FAKE_BIN))
	sh scripts/demo.sh

demo-agent: $(BIN) $(if $(FAKE_SRC),$(FAKE_BIN))
	sh scripts/demo-agent.sh

demo-cuda: $(BIN) $(if $(FAKE_SRC),$(FAKE_BIN))
	sh scripts/demo-cuda.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/upskill

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FAKE_OBJ:.o=.d) \
         $(BENCH_OBJ:.o=.d)
