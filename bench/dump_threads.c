// N threads for measuring how long `swprof dump` stops each one
// (bench/dump_stop_window.sh): the main thread and every odd thread block in
// read() on a pipe, every even thread spins. Prints "ready" and runs until
// killed.
//   cc -O1 -g -pthread -o dump_threads bench/dump_threads.c; ./dump_threads 64
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int pipe_fds[2];
static volatile int spinning = 1;

static void* blocked(void* arg) {
  char c;
  (void)arg;
  return (void*)(long)read(pipe_fds[0], &c, 1);
}

static void* spinner(void* arg) {
  (void)arg;
  while (spinning) __asm__ volatile("" ::: "memory");
  return 0;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  if (pipe(pipe_fds) != 0) return 1;
  for (int i = 1; i < n; ++i) {
    pthread_t t;
    pthread_create(&t, 0, i % 2 ? blocked : spinner, 0);
  }
  printf("ready\n");
  fflush(stdout);
  char c;
  return (int)read(pipe_fds[0], &c, 1);
}
