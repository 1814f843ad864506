/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
