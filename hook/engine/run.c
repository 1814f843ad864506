/* SPDX-License-Identifier: Apache-2.0 */
/* One run of the engine: its context, its failures and their report (run.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "engine/run.h"
#include "state/journal.h"

static void observe(void *data, const cnirt_event *ev)
{
	struct engine_run *r = data;
	r->plugin_usec += ev->usec;
	if (ev->err) {
		_cleanup_free_ char *msg = error_cni_text(ev->network, ev->err);
		log_debug("%s %s: %s %s failed after %.1f ms", r->id, r->stage, ev->command, msg,
			  ev->usec / 1000.0);
	} else {
		log_debug("%s %s: network \"%s\": plugin \"%s\" %s ok in %.1f ms", r->id, r->stage,
			  ev->network ? ev->network : "", ev->plugin, ev->command,
			  ev->usec / 1000.0);
	}
}

/* The running result after each plugin's ADD, kept in the ADD journal
 * (journal.h) before the next plugin starts: what the recovery DEL of a
 * hook killed from here on gives as prevResult. */
static int journal_step(void *data, const cnirt_add_step *s)
{
	struct engine_run *r = data;
	_cleanup_free_ char *err = NULL;
	if (journal_write(r->cfg->state_dir, r->id, s->network, s->ifname, s->result, s->result_len,
			  &err) == 0)
		return 0;
	run_failed(r, ENGINE_OWN_ERROR, err);
	return EIO;
}

void run_begin(struct engine_run *r, const struct hook_config *cfg, const char *id,
	       const char *stage)
{
	*r = (struct engine_run){
	    .cfg = cfg, .stage = stage, .id = id, .start_usec = clock_monotonic_usec()};
	r->ctx = hookconf_ctx(cfg);
	cnirt_ctx_set_event_observer(r->ctx, observe, r);
	cnirt_ctx_set_add_step(r->ctx, journal_step, r);
}

void run_end(struct engine_run *r)
{
	for (size_t i = 0; i < r->n_failures; i++)
		free(r->failures[i].msg);
	free(r->failures);
	cnirt_ctx_free(r->ctx);
	r->failures = NULL;
	r->n_failures = 0;
	r->ctx = NULL;
}

void run_failed(struct engine_run *r, int code, const char *msg)
{
	r->failures = xreallocarray(r->failures, r->n_failures + 1, sizeof(*r->failures));
	r->failures[r->n_failures++] = (struct engine_failure){.code = code, .msg = xstrdup(msg)};
}

void run_failed_cni(struct engine_run *r, const char *network, cnirt_error *e)
{
	_cleanup_free_ char *msg = error_cni_text(network, e);
	run_failed(r, cnirt_error_code(e) ? cnirt_error_code(e) : ENGINE_OWN_ERROR, msg);
	cnirt_error_free(e);
}

void run_warn_rollback(const struct engine_run *r, const char *network, const cnirt_error *e)
{
	for (size_t i = 0; i < cnirt_error_rollback_count(e); i++) {
		_cleanup_free_ char *msg = error_cni_text(network, cnirt_error_rollback(e, i));
		log_warn("%s %s: the rollback DEL after the failed ADD failed too: %s; what that "
			 "plugin made may be left (cnihook gc, or by hand)",
			 r->id, r->stage, msg);
	}
}

void run_report(struct engine_run *r)
{
	for (size_t i = 0; i < r->n_failures; i++)
		log_error("%s %s: %s", r->id ? r->id : "-", r->stage, r->failures[i].msg);
	struct engine_failure *why = r->t ? r->t->why : NULL;
	if (why && why->msg == NULL && r->n_failures > 0) {
		why->code = r->failures[0].code;
		why->msg = xstrdup(r->failures[0].msg);
	}
}

void run_log_done(const struct engine_run *r, const char *what, size_t n)
{
	long long now = clock_monotonic_usec();
	log_info("%s %s: %s %zu network(s) in %.1f ms (plugins %.1f ms, own %.1f ms)", r->id,
		 r->stage, what, n, (now - r->start_usec) / 1000.0, r->plugin_usec / 1000.0,
		 (now - r->start_usec - r->plugin_usec) / 1000.0);
}

const char *run_given_netns(const struct engine_run *r)
{
	return r->t && r->t->netns && *r->t->netns ? r->t->netns : NULL;
}
