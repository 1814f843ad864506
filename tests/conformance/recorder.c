#include "config.h"
#include "recorder.h"
