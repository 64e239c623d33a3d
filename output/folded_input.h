#pragma once
// The folded-stack reader's former name, kept for code that still includes it.

#include "output/folded_reader.h"
