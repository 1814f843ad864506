/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_LOCK_H
#define CNIHOOK_LOCK_H
#endif
