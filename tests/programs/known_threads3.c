// Threads with known stacks for `swprof dump` (tests/cli/dump_test.cpp):
//   reader   blocked in read() on a pipe:   read <- blocked_in_read <- reader_main <- start_thread <- clone3
//            (with READER_ALLOCA blocked_in_read has a run-time frame size: its caller needs rbp)
//   spinner  running a loop:                spin <- spinner_main <- start_thread <- clone3
//   locker   blocked in pthread_mutex_lock on a mutex main holds:
//            ... pthread_mutex_lock <- blocked_in_lock <- locker_main <- start_thread <- clone3
//   main     waiting for SIGUSR1 (sigwait) <- main
// It prints "ready" once the three threads have started, and on SIGUSR1
// releases them (a byte into the pipe, the mutex, the spinner's flag), joins
// them and prints "done reader=1 spinner=1 locker=1", exit 0.
//
// `known_threads3 churn` instead starts short-lived threads in a loop until
// SIGUSR1 (threads exiting while they are dumped), then prints "done churn".
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int pipe_fds[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static volatile int spinning = 1;
static volatile unsigned long spins;
static volatile int stop_churn;

#ifdef READER_ALLOCA
// A frame whose size is known only at run time: its caller is found from rbp
// alone (the CFI's CFA is rbp-based, no stack-height analysis can do it).
NOINLINE int blocked_in_read(int n) {
  char buf[n];
  buf[0] = 0;
  return read(pipe_fds[0], buf, 1) == 1 && buf[0] == 'x';
}
#else
NOINLINE int blocked_in_read(int n) {
  char c = (char)n;
  return read(pipe_fds[0], &c, 1) == 1 && c == 'x';
}
#endif

NOINLINE void spin(void) {
  while (spinning) spins++;
}

NOINLINE int blocked_in_lock(void) {
  int ok = pthread_mutex_lock(&held) == 0;
  pthread_mutex_unlock(&held);
  return ok;
}

static void* reader_main(void* arg) {
  pthread_setname_np(pthread_self(), "reader");
  return (void*)(long)blocked_in_read((int)(long)arg);
}

static void* spinner_main(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "spinner");
  spin();
  return (void*)(long)(spins > 0);
}

static void* locker_main(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "locker");
  return (void*)(long)blocked_in_lock();
}

static void* short_lived(void* arg) { return arg; }

static void* churn_main(void* arg) {
  (void)arg;
  while (!stop_churn) {
    pthread_t t;
    if (pthread_create(&t, 0, short_lived, 0) == 0) pthread_join(t, 0);
  }
  return 0;
}

static void wait_for_release(void) {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  int sig = 0;
  sigwait(&usr1, &sig);
}

static int churn(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, churn_main, 0);
  printf("ready\n");
  fflush(stdout);
  wait_for_release();
  stop_churn = 1;
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  printf("done churn\n");
  return 0;
}

int main(int argc, char** argv) {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, 0);  // every thread inherits it: sigwait takes it
  if (argc > 1 && strcmp(argv[1], "churn") == 0) return churn();
  if (pipe(pipe_fds) != 0) return 1;
  pthread_mutex_lock(&held);
  pthread_t reader, spinner, locker;
  pthread_create(&reader, 0, reader_main, (void*)(long)(16 + argc));
  pthread_create(&spinner, 0, spinner_main, 0);
  pthread_create(&locker, 0, locker_main, 0);
  printf("ready\n");
  fflush(stdout);
  wait_for_release();
  if (write(pipe_fds[1], "x", 1) != 1) return 1;
  pthread_mutex_unlock(&held);
  spinning = 0;
  void *r = 0, *s = 0, *l = 0;
  pthread_join(reader, &r);
  pthread_join(spinner, &s);
  pthread_join(locker, &l);
  printf("done reader=%ld spinner=%ld locker=%ld\n", (long)r, (long)s, (long)l);
  return 0;
}
