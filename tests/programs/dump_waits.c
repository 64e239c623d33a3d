// Threads waiting with timeouts, for `swprof dump` (tests/cli/dump_test.cpp):
// epoll_wait, poll, select and accept (SO_RCVTIMEO), each for 1.5 s on
// something that never comes. Each prints how its wait ended:
//   "epoll_wait -> 0", "poll -> 0", "select -> 0", "accept -> -1 EAGAIN"
// A dump that stops a thread (ptrace) makes epoll_wait and accept return
// EINTR instead; poll and select restart (restart_block) and still time out.
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

static int pipe_fds[2];

static void report(const char* what, int r) {
  printf("%s -> %d%s%s\n", what, r < 0 ? -1 : r, r < 0 ? " " : "", r < 0 ? (errno == EINTR ? "EINTR" : errno == EAGAIN ? "EAGAIN" : strerror(errno)) : "");
  fflush(stdout);
}

static void* in_epoll(void* arg) {
  (void)arg;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev);
  report("epoll_wait", epoll_wait(ep, &ev, 1, 1500));
  return 0;
}

static void* in_poll(void* arg) {
  (void)arg;
  struct pollfd p = {pipe_fds[0], POLLIN, 0};
  report("poll", poll(&p, 1, 1500));
  return 0;
}

static void* in_select(void* arg) {
  (void)arg;
  fd_set fds;
  FD_ZERO(&fds);
  FD_SET(pipe_fds[0], &fds);
  struct timeval tv = {1, 500000};
  report("select", select(pipe_fds[0] + 1, &fds, 0, 0, &tv));
  return 0;
}

static void* in_accept(void* arg) {
  (void)arg;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = {htonl(INADDR_LOOPBACK)}};
  bind(l, (struct sockaddr*)&sa, sizeof sa);
  listen(l, 1);
  struct timeval tv = {1, 500000};
  setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  report("accept", accept(l, 0, 0));
  return 0;
}

int main(void) {
  if (pipe(pipe_fds) != 0) return 1;
  void* (*waits[])(void*) = {in_epoll, in_poll, in_select, in_accept};
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], 0, waits[i], 0);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], 0);
  return 0;
}
