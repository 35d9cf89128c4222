#define _GNU_SOURCE
#include "trove_process.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The child is started with vfork, not fork: fork runs the process's atfork handlers, and OpenBLAS's
// (blas_thread_shutdown_) joins its worker threads under a lock, which deadlocked the whole process when two threads
// started workers at once (seen in the test suite: every thread stuck in __run_prefork_handlers). vfork runs no
// handlers and copies nothing. The child shares the parent's memory until execve, so everything it does is a plain
// system call on its own locals, async-signal-safe, and it never returns from trove_spawn; signals are blocked around
// the vfork so that no handler of the parent's runs in the child.
static void child_fail(int report) {
    int error = errno;
    ssize_t ignored = write(report, &error, sizeof error);
    (void)ignored;
    _exit(127);
}

static void close_from(int first, int keep) {
    // close_range (Linux 5.9) where it exists; else one close per descriptor up to the limit.
    if (keep > first) {
        if (syscall(SYS_close_range, (unsigned)first, (unsigned)(keep - 1), 0) != 0)
            for (int fd = first; fd < keep; fd++) close(fd);
    }
    int from = keep >= first ? keep + 1 : first;
    if (syscall(SYS_close_range, (unsigned)from, ~0U, 0) != 0) {
        long most = sysconf(_SC_OPEN_MAX);
        for (long fd = from; fd < (most > 0 ? most : 65536); fd++) close((int)fd);
    }
}

int trove_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int fd_count,
                const struct trove_spawn_limits *limits, pid_t *pid) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t child = vfork();
    if (child < 0) {
        int error = errno;
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        close(report[0]);
        close(report[1]);
        return error;
    }
    if (child == 0) {
        if (limits && limits->die_with_parent) {
            if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) child_fail(report[1]);
            // The parent may have ended before the call: then nothing would deliver the signal.
            if (getppid() != parent) _exit(127);
        }
        // Handlers are reset before signals are unblocked (execve resets them too, but a signal could arrive
        // first); an ignored SIGPIPE (trove ignores it) would be inherited across execve. Without CLONE_SIGHAND the
        // child's dispositions are its own.
        struct sigaction reset = {.sa_handler = SIG_DFL};
        for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &reset, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        // First move the report pipe and every source above the targets, so that placing one cannot overwrite
        // another (nor the pipe).
        if (fd_count > 16) { errno = EINVAL; child_fail(report[1]); }
        int reporter = fcntl(report[1], F_DUPFD_CLOEXEC, 20);
        if (reporter < 0) child_fail(report[1]);
        int moved[16];
        for (int i = 0; i < fd_count; i++) {
            moved[i] = fcntl(fds[i], F_DUPFD, 21);
            if (moved[i] < 0) child_fail(reporter);
        }
        for (int i = 0; i < fd_count; i++)
            if (dup2(moved[i], i) < 0) child_fail(reporter);
        close_from(fd_count, reporter);
        if (limits) {
            struct rlimit limit;
            if (limits->address_space) {
                limit.rlim_cur = limit.rlim_max = limits->address_space;
                if (setrlimit(RLIMIT_AS, &limit) != 0) child_fail(reporter);
            }
            if (limits->open_files) {
                limit.rlim_cur = limit.rlim_max = limits->open_files;
                if (setrlimit(RLIMIT_NOFILE, &limit) != 0) child_fail(reporter);
            }
            if (limits->confine) {
                limit.rlim_cur = limit.rlim_max = 0;
                if (setrlimit(RLIMIT_FSIZE, &limit) != 0 || setrlimit(RLIMIT_CORE, &limit) != 0)
                    child_fail(reporter);
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(reporter);
                if (setpgid(0, 0) != 0) child_fail(reporter);
            }
        }
        execve(path, argv, envp);
        child_fail(reporter);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(report[1]);
    int error = 0;
    ssize_t got;
    do got = read(report[0], &error, sizeof error); while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof error) {
        // The child reported a failure and exited: reap it so that it leaves no zombie.
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return error ? error : ECHILD;
    }
    *pid = child;
    return 0;
}

int trove_exit_status(int status, int *signal) {
    if (WIFSIGNALED(status)) {
        *signal = WTERMSIG(status);
        return -1;
    }
    *signal = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

long trove_send_descriptor(int socket, const void *bytes, unsigned long length, int fd) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    ssize_t sent;
    do sent = sendmsg(socket, &message, MSG_NOSIGNAL); while (sent < 0 && errno == EINTR);
    return sent;
}

long trove_receive_descriptor(int socket, void *bytes, unsigned long capacity, int *fd) {
    struct iovec vector = {.iov_base = bytes, .iov_len = capacity};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *fd = -1;
    ssize_t got;
    do got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); while (got < 0 && errno == EINTR);
    if (got < 0) return got;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int received;
            memcpy(&received, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            // Only the first descriptor is the request's; a peer that sends more gets them closed.
            if (*fd < 0) *fd = received; else close(received);
        }
    }
    return got;
}

int trove_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
