/*
 * zk-chaos's slow-fsync shim, LD_PRELOADed into every server JVM of a run started with --nemesis slow-fsync.
 * fsync and fdatasync (what the JVM's FileChannel.force calls) first sleep for the number of milliseconds written
 * in the file $ZKR_SLOW_FSYNC_DIR/<pid> of the calling process, if there is one, then do the real call. The same
 * mechanism for zkr and ZooKeeper: neither server knows.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long delay_ms(void) {
    const char *dir = getenv("ZKR_SLOW_FSYNC_DIR");
    if (dir == NULL) {
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%d", dir, (int) getpid());
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return 0;
    }
    char buf[32];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = 0;
    return atol(buf);
}

static void maybe_sleep(void) {
    long ms = delay_ms();
    if (ms > 0) {
        usleep((useconds_t) (ms * 1000));
    }
}

int fsync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) {
        real = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
    }
    maybe_sleep();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) {
        real = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
    }
    maybe_sleep();
    return real(fd);
}
