# libFuzzer targets (docs/fuzzing.md). A plain make fragment, run from a
# configured build directory (it needs that directory's config.h):
#
#     make -f $(top_srcdir)/tests/fuzz/fuzz.mk top_srcdir=SRC top_builddir=BUILD
#
# (`make fuzz` in the build directory does exactly that.) The binaries are
# $(top_builddir)/tests/fuzz/fuzz_*; tests/fuzz/run.sh builds and runs them.

top_srcdir ?= .
top_builddir ?= .
CC = clang
PKG_CONFIG ?= pkg-config

FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	-std=gnu11 -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter
FUZZ_LDFLAGS = -fsanitize=fuzzer $(FUZZ_SAN)
YAJL_CFLAGS := $(shell $(PKG_CONFIG) --cflags yajl)
YAJL_LIBS := $(shell $(PKG_CONFIG) --libs yajl)
FUZZ_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/common -I$(top_srcdir)/lib -I$(top_srcdir)/hook $(YAJL_CFLAGS) \
	-DSYSCONFDIR='"/etc"' -DLOCALSTATEDIR='"/var"' -DRUNSTATEDIR='"/run"'

OUT = $(top_builddir)/tests/fuzz
OBJ = $(OUT)/obj

COMMON_FILES = alloc buf clock dir read file json text
COMMON_OBJS = $(COMMON_FILES:%=$(OBJ)/common/%.o)
LIB_FILES = base64 cache chain conf ctx derive error exec json-read names result version
# libcnirt as it is built: its own files and the common layer.
LIB_OBJS = $(LIB_FILES:%=$(OBJ)/lib/%.o) $(COMMON_OBJS)
HOOK_OBJS = $(OBJ)/hook/base/util.o $(OBJ)/hook/base/error.o $(OBJ)/hook/base/kvlist.o $(OBJ)/hook/base/strv.o $(OBJ)/hook/base/strset.o $(OBJ)/hook/base/suggest.o $(OBJ)/hook/base/sha512.o $(COMMON_OBJS)

TARGETS = fuzz_state fuzz_annotations fuzz_netlist fuzz_result fuzz_cache
BINS = $(TARGETS:%=$(OUT)/%)

all: $(BINS)

$(OBJ)/lib/%.o: $(top_srcdir)/lib/%.c $(top_srcdir)/lib/internal.h $(top_srcdir)/lib/cnirt.h
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

$(OBJ)/common/%.o: $(top_srcdir)/common/%.c $(wildcard $(top_srcdir)/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

$(OBJ)/hook/%.o: $(top_srcdir)/hook/%.c $(wildcard $(top_srcdir)/hook/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

$(OBJ)/%.o: $(top_srcdir)/tests/fuzz/%.c $(top_srcdir)/lib/internal.h
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

# The hook links libcnirt through its public API only (as the real binary
# does with the shared library): the library's objects are linked into one
# object whose hidden symbols are made local, so that the hook's own
# xmalloc & co. do not clash with the library's.
$(OBJ)/libcnirt-public.o: $(LIB_OBJS)
	ld -r -o $@.tmp $(LIB_OBJS)
	objcopy --localize-hidden $@.tmp $@
	rm -f $@.tmp

# The library targets reach its internal functions (lib/internal.h).
$(OUT)/fuzz_netlist: $(OBJ)/fuzz_netlist.o $(LIB_OBJS)
	$(CC) $(FUZZ_LDFLAGS) -o $@ $^ $(YAJL_LIBS)
$(OUT)/fuzz_result: $(OBJ)/fuzz_result.o $(LIB_OBJS)
	$(CC) $(FUZZ_LDFLAGS) -o $@ $^ $(YAJL_LIBS)
$(OUT)/fuzz_cache: $(OBJ)/fuzz_cache.o $(LIB_OBJS)
	$(CC) $(FUZZ_LDFLAGS) -o $@ $^ $(YAJL_LIBS)

# The hook targets: its files plus the library's public API.
# fuzz_state: every open() of hook/request/oci-state.c goes through __wrap_open (the
# bundle's config.json comes from the input, never from the disk).
$(OUT)/fuzz_state: $(OBJ)/fuzz_state.o $(OBJ)/hook/request/oci-state.o $(HOOK_OBJS) $(OBJ)/libcnirt-public.o
	$(CC) $(FUZZ_LDFLAGS) -Wl,--wrap=open -o $@ $^ $(YAJL_LIBS)
ANNOTATIONS_OBJS = $(patsubst %,$(OBJ)/hook/request/%.o,annotations annotation-value addresses \
	port-mappings bandwidth cni-args kube-pod plugin-args names-request)
$(OUT)/fuzz_annotations: $(OBJ)/fuzz_annotations.o $(ANNOTATIONS_OBJS) $(HOOK_OBJS) \
		$(OBJ)/libcnirt-public.o
	$(CC) $(FUZZ_LDFLAGS) -o $@ $^ $(YAJL_LIBS)

clean:
	rm -rf $(OBJ) $(BINS)

.PHONY: all clean
