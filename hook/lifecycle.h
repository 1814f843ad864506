/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_LIFECYCLE_H
#define CNIHOOK_LIFECYCLE_H
#endif
