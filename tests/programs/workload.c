/* Test workloads with known behaviour, driven by the integration tests.
 *
 *   workload spin SECONDS          main -> work -> leaf, for SECONDS of CPU time
 *   workload threads N SECONDS [DELAY]  after DELAY seconds of CPU on main, N threads
 *                                  ("worker-I") and main each spin SECONDS
 *   workload forkexec SECONDS      fork; the child execs "workload spin SECONDS"; both spin
 *   workload syscalls SECONDS      write(2) to /dev/null in a loop (time in the kernel)
 *   workload exit CODE             spin briefly, then exit with CODE
 *   workload forever               print "ready", then spin until killed
 *   workload stubborn              like forever, but ignores SIGINT and SIGTERM
 *
 * Built with -O1 -fno-omit-frame-pointer -fno-inline so the call path is stable. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void leaf(void) {
  for (int i = 0; i < 20000; ++i) sink += (unsigned long)i * 2654435761u;
}

__attribute__((noinline)) static void work(double seconds) {
  const double end = thread_cpu_seconds() + seconds;
  while (thread_cpu_seconds() < end) leaf();
}

static void* worker(void* arg) {
  static int next_id;
  char name[16];
  snprintf(name, sizeof name, "worker-%d", __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST));
  pthread_setname_np(pthread_self(), name);
  work(*(double*)arg);
  return NULL;
}

static int run_threads(int n, double seconds, double delay) {
  work(delay);
  pthread_t* threads = calloc((size_t)n, sizeof *threads);
  for (int i = 0; i < n; ++i) pthread_create(&threads[i], NULL, worker, &seconds);
  work(seconds);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  free(threads);
  return 0;
}

static int run_forkexec(const char* self, const char* seconds) {
  pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "spin", seconds, (char*)NULL);
    _exit(127);
  }
  work(atof(seconds));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

__attribute__((noinline)) static void do_syscalls(double seconds) {
  int fd = open("/dev/null", O_WRONLY);
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  const double end = thread_cpu_seconds() + seconds;
  while (thread_cpu_seconds() < end)
    for (int i = 0; i < 64; ++i) sink += (unsigned long)write(fd, buf, sizeof buf);
  close(fd);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: workload spin|threads|forkexec|syscalls|exit|forever ...\n");
    return 2;
  }
  const char* mode = argv[1];
  if (!strcmp(mode, "spin") && argc == 3) {
    work(atof(argv[2]));
    return 0;
  }
  if (!strcmp(mode, "threads") && (argc == 4 || argc == 5))
    return run_threads(atoi(argv[2]), atof(argv[3]), argc == 5 ? atof(argv[4]) : 0.0);
  if (!strcmp(mode, "forkexec") && argc == 3) return run_forkexec("/proc/self/exe", argv[2]);
  if (!strcmp(mode, "syscalls") && argc == 3) {
    do_syscalls(atof(argv[2]));
    return 0;
  }
  if (!strcmp(mode, "exit") && argc == 3) {
    work(0.05);
    return atoi(argv[2]);
  }
  if (!strcmp(mode, "stubborn")) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    mode = "forever";
  }
  if (!strcmp(mode, "forever")) {
    printf("ready\n");
    fflush(stdout);
    for (;;) work(1.0);
  }
  fprintf(stderr, "workload: bad arguments\n");
  return 2;
}
