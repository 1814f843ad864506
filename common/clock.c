/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic clock, for durations and deadlines (common.h). */
#include "config.h"

#include <time.h>

#include "common.h"

long long clock_monotonic_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long long clock_monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
