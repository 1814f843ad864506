/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_STATUS_H
#define CNIHOOK_STATUS_H
#endif
