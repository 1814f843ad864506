/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_RECORD_H
#define CNIHOOK_RECORD_H
#endif
