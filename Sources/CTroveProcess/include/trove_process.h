#ifndef TROVE_PROCESS_H
#define TROVE_PROCESS_H

#include <sys/types.h>

/// What a spawned child runs under (zero fields leave the parent's setting).
struct trove_spawn_limits {
    /// RLIMIT_AS in bytes: a parser that allocates past it fails its allocation instead of exhausting the machine.
    unsigned long long address_space;
    /// RLIMIT_NOFILE.
    unsigned long long open_files;
    /// Nonzero: RLIMIT_FSIZE 0 (no file can be written), RLIMIT_CORE 0, PR_SET_NO_NEW_PRIVS, and a process group of
    /// its own (so one kill reaches the child and everything it started, and a terminal's Ctrl-C does not).
    int confine;
    /// Nonzero: SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG), so a tool cannot outlive the
    /// worker that runs it. Only for a spawning thread that lives as long as the child must (the worker's one).
    int die_with_parent;
};

/// Starts `path` with `argv` and `envp`; `fds[i]` becomes the child's descriptor i (for i < fd_count) and every other
/// descriptor is closed in the child. Returns 0 with `*pid` set, or the errno of what failed (vfork, or execve in the
/// child, reported back through a close-on-exec pipe).
int trove_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int fd_count,
                const struct trove_spawn_limits *limits, pid_t *pid);

/// For a `waitpid` status: the exit status, or -1 when a signal ended the process (its number in `*signal`).
int trove_exit_status(int status, int *signal);

/// Sends `length` bytes on a Unix socket with the descriptor `fd` attached (SCM_RIGHTS): the bytes sent, or -1.
long trove_send_descriptor(int socket, const void *bytes, unsigned long length, int fd);

/// Receives up to `capacity` bytes from a Unix socket; a descriptor that came with them is stored in `*fd` (close on
/// exec), else `*fd` is -1. The bytes received, 0 at the end of the stream, or -1.
long trove_receive_descriptor(int socket, void *bytes, unsigned long capacity, int *fd);

/// pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not export: 0, or -1 with errno.
int trove_pipe(int fds[2]);

#endif
