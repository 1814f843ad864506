/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the conformance tests: a temporary plugin directory holding
 * copies of the recording fake plugin (tests/plugins/fakeplugin) under the
 * plugin type names a test needs, the control files that tell each copy how
 * to answer, and readers for what the copies recorded.
 *
 * The fake plugin keeps its state beside itself: control files
 * `NAME.COMMAND` / `NAME.default`, the counter `.seq` and the records
 * `rec/NNNN-NAME-COMMAND.{env,stdin,argv}`, all in the plugin directory.
 *
 * Every failure here is a broken test environment, not a finding: the
 * helpers fail the running cmocka test with a message.
 */
#ifndef RECORDER_H
#define RECORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

struct recorder {
	char *root;	 /* the temporary directory holding everything below */
	char *bin_dir;	 /* plugin copies, control files, .seq, rec/ */
	char *cache_dir; /* a cache directory for the runtime under test */
	char *files_dir; /* answer files named by stdout-file= */
	char *fake;	 /* $FAKEPLUGIN */
};

/* One recorded plugin execution. */
struct rec_call {
	unsigned seq;
	char *plugin;
	char *command;
	char *prefix; /* <bin_dir>/rec/NNNN-NAME-COMMAND (add .stdin, .env, .argv) */
};

/* A recorded environment, in the order of the plugin's environ. */
struct rec_env {
	char **keys;
	char **values;
	size_t n;
};

/* A new temporary directory with empty bin/, cache/ and files/. NULL (and
 * nothing made) when $FAKEPLUGIN is not set or is not a file. */
struct recorder *recorder_new(void);
/* Remove every file and directory the recorder made, then free it. */
void recorder_free(struct recorder *r);

/* Copy $FAKEPLUGIN into the plugin directory as `name` (mode 0755). */
void recorder_add_plugin(struct recorder *r, const char *name);
void recorder_remove_plugin(struct recorder *r, const char *name);

/* Write the control file of `plugin` for `command` (NULL: the `default`
 * file), replacing any earlier one. The text is printf-formatted. */
void recorder_control(struct recorder *r, const char *plugin, const char *command, const char *fmt,
		      ...) PRINTF_LIKE(4, 5);
void recorder_control_remove(struct recorder *r, const char *plugin, const char *command);
/* Write `name` in files/ and return its path (caller frees). */
char *recorder_file(struct recorder *r, const char *name, const void *data, size_t len);
/* Make `plugin` answer `command` with the bytes of `answer` (stdout-file=)
 * and exit status `status`. */
void recorder_answer(struct recorder *r, const char *plugin, const char *command,
		     const char *answer, int status);
/* Same, with a JSON tree serialised. */
void recorder_answer_json(struct recorder *r, const char *plugin, const char *command,
			  const json *answer, int status);

/* The recorded calls in sequence order. */
size_t recorder_calls(const struct recorder *r, struct rec_call **out);
void rec_calls_free(struct rec_call *calls, size_t n);
/* Forget what was recorded so far (the sequence keeps counting). */
void recorder_clear(struct recorder *r);

/* The exact bytes a call got on stdin (NUL terminated; caller frees). */
char *rec_call_stdin(const struct rec_call *c, size_t *len);
/* The same, parsed (fails the test if it is not one JSON value). */
json *rec_call_stdin_json(const struct rec_call *c);
/* The recorded environment. */
void rec_call_env(const struct rec_call *c, struct rec_env *env);
/* The value of `key`, or NULL if the plugin did not have it. */
const char *rec_env_get(const struct rec_env *env, const char *key);
void rec_env_free(struct rec_env *env);

/* Small file helpers. read_whole_file: NULL if the file does not exist. */
char *read_whole_file(const char *path, size_t *len);
void write_whole_file(const char *path, const void *data, size_t len, unsigned mode);
/* Remove a tree (no error if it does not exist). */
void remove_tree(const char *path);

#endif
