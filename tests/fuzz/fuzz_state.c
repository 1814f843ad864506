/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the OCI state on the hook's stdin (hook/request/oci-state.c, oci_state_parse).
 *
 * Input: the state JSON, optionally followed by a NUL byte and the content
 * of the bundle's config.json. The binary is linked with --wrap=open: any
 * open() of a path ending in "/config.json" gets a memfd holding that
 * content (or ENOENT when the input has no NUL byte), so a fuzzed "bundle"
 * never makes the target read a file from the disk.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cnirt.h"
#include "jsoncheck.h"
#include "base/util.h"
#include "request/oci-state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);

static const char *config_data;
static size_t config_len;
static bool config_present;

static bool is_config_json(const char *path)
{
	size_t n = strlen(path);
	return n >= 12 && strcmp(path + n - 12, "/config.json") == 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	if (!is_config_json(path)) {
		mode_t mode = 0;
		if (flags & (O_CREAT | O_TMPFILE)) {
			va_list ap;
			va_start(ap, flags);
			mode = (mode_t)va_arg(ap, int);
			va_end(ap);
		}
		return __real_open(path, flags, mode);
	}
	if (!config_present) {
		errno = ENOENT;
		return -1;
	}
	int fd = memfd_create("config.json", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < config_len;) {
		ssize_t w = write(fd, config_data + off, config_len - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_state: invariant broken: %s\n", #cond);              \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *nul = memchr(buf, '\0', size);
	size_t state_len = nul ? (size_t)(nul - buf) : size;
	config_present = nul != NULL;
	config_data = nul ? nul + 1 : NULL;
	config_len = nul ? size - state_len - 1 : 0;

	struct oci_state *s = NULL;
	char *err = NULL;
	if (oci_state_parse(buf, state_len, false, &s, &err) < 0) {
		CHECK(err != NULL && err[0] != '\0');
		CHECK(s == NULL);
		free(err);
		return 0;
	}
	CHECK(err == NULL);
	/* common/json.c with the hook's limits: JSON only, no comments. */
	CHECK(json_syntax_ok(buf, state_len, false));
	CHECK(!s->has_config || json_syntax_ok(config_data, config_len, false));
	CHECK(s->oci_version && s->id && s->status);
	/* What the hook relies on after a successful parse. */
	cnirt_error *e = NULL;
	CHECK(cnirt_check_container_id(s->id, &e) == 0);
	CHECK(s->pid >= 0);
	CHECK(s->bundle == NULL || s->bundle[0] == '/');
	CHECK(s->netns_path == NULL || (s->netns_in_config && s->netns_path[0] == '/'));
	CHECK(!s->has_config || config_present);
	for (size_t i = 0; i < s->annotations.n; i++)
		CHECK(s->annotations.v[i].key != NULL && s->annotations.v[i].value != NULL);
	oci_state_free(s);
	return 0;
}
