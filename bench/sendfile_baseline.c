/* CPU seconds per GB (1e9 bytes) that sending a file over loopback TCP with
 * sendfile(2) costs the sender: the floor for any zero-copy consumer path on this
 * machine, since on loopback the sender's system time includes the receiving
 * socket's TCP processing (bench/e2e_bench.sh).
 * Usage: sendfile_baseline FILE [GiB]  (FILE is read repeatedly, 1 MiB a call) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
        fprintf(stderr, "usage: %s FILE [GiB]\n", argv[0]);
        return 2;
    }
    double gib = argc > 2 ? atof(argv[2]) : 1.0;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (1 << 20)) {
        fprintf(stderr, "need a readable file of at least 1 MiB\n");
        return 2;
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr*)&a, sizeof a) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr*)&a, &al) != 0) {
        perror("listen");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) { /* the consumer: read and discard */
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) {
            _exit(1);
        }
        static char buf[1 << 20];
        while (read(c, buf, sizeof buf) > 0) {
        }
        _exit(0);
    }
    int s = accept(ls, NULL, NULL);
    unsigned long long total = (unsigned long long)(gib * 1073741824.0);
    unsigned long long sent = 0;
    off_t span = st.st_size - st.st_size % (1 << 20);
    double t0 = cpu_seconds();
    while (sent < total) {
        off_t off = (off_t)(sent % (unsigned long long)span);
        ssize_t n = sendfile(s, fd, &off, 1 << 20);
        if (n <= 0) {
            perror("sendfile");
            return 1;
        }
        sent += (unsigned long long)n;
    }
    double used = cpu_seconds() - t0;
    close(s);
    waitpid(child, NULL, 0);
    printf("%.6f\n", used / (sent / 1e9));
    return 0;
}
