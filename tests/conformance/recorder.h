#ifndef RECORDER_H
#define RECORDER_H
#endif
