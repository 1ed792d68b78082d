/* SPDX-License-Identifier: MIT */
/* Placeholder until the libdw symbolizer lands: every DSO reports itself unloaded. */
#include "dso.h"
