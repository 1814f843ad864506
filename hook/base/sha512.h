/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_BASE_SHA512_H
#define CNIHOOK_BASE_SHA512_H

#include <stddef.h>
#include <stdint.h>

/* SHA-512 (FIPS 180-4) of a buffer. */
void sha512(const void *data, size_t len, uint8_t digest[64]);

#endif
