/* proc: see proc.h. */
#define _GNU_SOURCE /* pipe2 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void proc_init(proc *p) {
  p->pid = 0;
  p->to = p->from = p->err = -1;
  p->last_signal = 0;
}

/* A pipe whose ends are close-on-exec and above 2, so the dup2 onto 0/1/2 in the child always
 * makes a fresh, inheritable descriptor even if our own stdin/stdout are closed. */
static int pipe_cloexec(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  for (int i = 0; i < 2; i++) {
    if (fds[i] > 2) continue;
    int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
    if (moved < 0) {
      int e = errno;
      close(fds[0]), close(fds[1]);
      errno = e;
      return -1;
    }
    close(fds[i]);
    fds[i] = moved;
  }
  return 0;
}

static void close_pair(int fds[2]) {
  for (int i = 0; i < 2; i++)
    if (fds[i] >= 0) close(fds[i]);
}

int proc_spawn(proc *p, const char *exe, char *const argv[], int capture_stderr) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
  if (pipe_cloexec(in) || pipe_cloexec(out) || (capture_stderr && pipe_cloexec(er))) {
    int e = errno;
    close_pair(in), close_pair(out), close_pair(er);
    return e ? e : EIO;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (capture_stderr) posix_spawn_file_actions_adddup2(&fa, er[1], 2);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  sigaddset(&dfl, SIGINT);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &dfl);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(in[0]), close(out[1]);
  if (er[1] >= 0) close(er[1]);
  if (rc != 0) {
    close(in[1]), close(out[0]);
    if (er[0] >= 0) close(er[0]);
    return rc;
  }
  p->pid = pid, p->to = in[1], p->from = out[0], p->err = er[0];
  return 0;
}

void proc_close_pipes(proc *p) {
  if (p->to >= 0) close(p->to);
  if (p->from >= 0) close(p->from);
  if (p->err >= 0) close(p->err);
  p->to = p->from = p->err = -1;
}

static const char *signal_name(int s) {
  switch (s) {
  case SIGKILL: return "SIGKILL";
  case SIGSEGV: return "SIGSEGV";
  case SIGABRT: return "SIGABRT";
  case SIGBUS: return "SIGBUS";
  case SIGTERM: return "SIGTERM";
  case SIGFPE: return "SIGFPE";
  case SIGILL: return "SIGILL";
  case SIGINT: return "SIGINT";
  case SIGPIPE: return "SIGPIPE";
  default: return "signal";
  }
}

void proc_reap(proc *p, int kill_first, double grace_s, char *how, size_t howlen) {
  if (how && howlen) how[0] = 0;
  if (p->pid <= 0) {
    proc_close_pipes(p);
    return;
  }
  if (kill_first) kill(p->pid, SIGKILL);
  proc_close_pipes(p);
  int st = 0;
  pid_t r = 0;
  if (grace_s >= 0) {
    for (int i = 0; i < (int)(grace_s * 100) && (r = waitpid(p->pid, &st, WNOHANG)) == 0; i++) usleep(10000);
    if (r == 0) kill(p->pid, SIGKILL);
  }
  if (r == 0)
    while ((r = waitpid(p->pid, &st, 0)) < 0 && errno == EINTR) {
    }
  p->last_signal = r > 0 && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  if (how && howlen) {
    if (r < 0) snprintf(how, howlen, "could not be reaped (%s)", strerror(errno));
    else if (WIFSIGNALED(st)) {
      int s = WTERMSIG(st);
      snprintf(how, howlen, "was killed by %s (signal %d: %s)", signal_name(s), s, strsignal(s));
    } else if (WIFEXITED(st)) snprintf(how, howlen, "exited with status %d", WEXITSTATUS(st));
    else snprintf(how, howlen, "ended (wait status %d)", st);
  }
  p->pid = 0;
}
