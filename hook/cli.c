/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include "cli.h"

int cli_main(int argc, char **argv)
{
	return 0;
}
