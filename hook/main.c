/* SPDX-License-Identifier: Apache-2.0 */
/* cnihook: the OCI hook and the operator CLI. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"

int main(int argc, char **argv)
{
	enum log_level level = LOG_LEVEL_WARN;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_usage(stdout);
			return 0;
		} else if (strncmp(argv[i], "--log-level=", 12) == 0) {
			if (log_parse_level(argv[i] + 12, &level) < 0) {
				fprintf(stderr, "cnihook: --log-level: \"%s\" is not one of error, "
						"warn, info, debug\n",
					argv[i] + 12);
				return 2;
			}
		} else {
			fprintf(stderr, "cnihook: unknown option \"%s\" (see cnihook --help)\n",
				argv[i]);
			return 2;
		}
	}
	log_init(level, 0);
	if (i == argc) {
		cli_usage(stderr);
		return 2;
	}
	return cli_main(argc - i, argv + i);
}
