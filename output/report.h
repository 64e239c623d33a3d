#pragma once
// The report formats of `swprof report`, each written from a Profile, and the
// JSON profile's reader: one header for code that uses several of them.

#include "output/folded_writer.h"
#include "output/json_profile_reader.h"
#include "output/json_profile_writer.h"
#include "output/pprof_writer.h"
#include "output/report_format.h"
#include "output/speedscope_writer.h"
#include "output/text_report.h"
