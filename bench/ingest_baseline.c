/* CPU seconds per GB (1e9 bytes) that the plainest possible ingest costs a receiver
 * on this machine: read(2) from a loopback TCP socket into a 1 MiB buffer and
 * write(2) it to a file, nothing else (no parsing, no checksum). The floor for a
 * broker's produce path next to memcpy (bench/e2e_bench.sh).
 * Usage: ingest_baseline DIR [GiB]  (writes DIR/ingest.bin, removed at the end) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [GiB]\n", argv[0]);
        return 2;
    }
    double gib = argc > 2 ? atof(argv[2]) : 1.0;
    unsigned long long total = (unsigned long long)(gib * 1073741824.0);
    char path[4096];
    snprintf(path, sizeof path, "%s/ingest.bin", argv[1]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (fd < 0 || bind(ls, (struct sockaddr*)&a, sizeof a) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr*)&a, &al) != 0) {
        perror("setup");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) { /* the producer: write `total` bytes */
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) {
            _exit(1);
        }
        static char buf[1 << 20];
        memset(buf, 'x', sizeof buf);
        for (unsigned long long sent = 0; sent < total;) {
            ssize_t n = write(c, buf, sizeof buf);
            if (n <= 0) {
                _exit(1);
            }
            sent += (unsigned long long)n;
        }
        _exit(0);
    }
    int s = accept(ls, NULL, NULL);
    static char buf[1 << 20];
    unsigned long long got = 0;
    double t0 = cpu_seconds();
    for (;;) {
        ssize_t n = read(s, buf, sizeof buf);
        if (n <= 0) {
            break;
        }
        if (write(fd, buf, (size_t)n) != n) {
            perror("write");
            return 1;
        }
        got += (unsigned long long)n;
    }
    double used = cpu_seconds() - t0;
    waitpid(child, NULL, 0);
    close(fd);
    unlink(path);
    printf("%.6f\n", used / (got / 1e9));
    return 0;
}
