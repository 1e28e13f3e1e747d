/* Start-up cost: the time from exec() (the parent's clock before execv, so
 * dynamic loading counts) to tc_init done, and the peak RSS then. Runs itself
 * as a child 7 times and reports the medians. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tc.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) {
    const double start = atof(argv[2]);
    if (tc_init(NULL) != TC_OK) return 1;
    const double ms = (now() - start) * 1e3;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.6f %ld\n", ms, ru.ru_maxrss);
    tc_shutdown();
    return 0;
  }
  enum { RUNS = 7 };
  double ms[RUNS], rss[RUNS];
  for (int i = 0; i < RUNS; ++i) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    char stamp[64];
    snprintf(stamp, sizeof stamp, "%.9f", now());
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(fd[1], 1);
      close(fd[0]);
      execl("/proc/self/exe", argv[0], "--child", stamp, (char*)NULL);
      _exit(127);
    }
    close(fd[1]);
    char buf[128] = {0};
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    long kb = 0;
    if (got <= 0 || sscanf(buf, "%lf %ld", &ms[i], &kb) != 2) return 1;
    rss[i] = (double)kb / 1024.0;
  }
  qsort(ms, RUNS, sizeof ms[0], cmp);
  qsort(rss, RUNS, sizeof rss[0], cmp);
  printf("RESULT init_time libtc %.4g ms\n", ms[RUNS / 2]);
  printf("RESULT init_peak_rss libtc %.4g MB\n", rss[RUNS / 2]);
  return 0;
}
