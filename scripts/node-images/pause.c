/* The Kubernetes pause container, the first container of every pod: it holds the pod's namespaces
 * and does nothing else. Like Kubernetes' own (build/pause/linux/pause.c) it exits 0 on SIGINT and
 * SIGTERM and, when it is the pod's PID 1 (shareProcessNamespace), reaps the zombies reparented to
 * it. Built static by scripts/node-images/build-rootfs.sh: the image holds this one file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void sigdown(int signo) {
  (void)signo;
  exit(0);
}

static void sigreap(int signo) {
  int saved_errno = errno;
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved_errno;
}

int main(void) {
  struct sigaction down = {.sa_handler = sigdown};
  struct sigaction reap = {.sa_handler = sigreap, .sa_flags = SA_NOCLDSTOP | SA_RESTART};

  if (getpid() != 1) fprintf(stderr, "Warning: pause should be the first process\n");
  sigemptyset(&down.sa_mask);
  sigemptyset(&reap.sa_mask);
  if (sigaction(SIGINT, &down, NULL) < 0 || sigaction(SIGTERM, &down, NULL) < 0 ||
      sigaction(SIGCHLD, &reap, NULL) < 0) {
    perror("sigaction");
    return 1;
  }
  for (;;) pause();
  return 42; /* not reached */
}
