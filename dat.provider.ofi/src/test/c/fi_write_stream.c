/*
 * libfabric's own RMA-write stream over a connected endpoint (FI_EP_MSG), beside a plain TCP
 * stream between the same two processes, in C: the ceiling a DAT provider over libfabric can
 * reach for `dat perf --client`'s "RDMA write" figure, measured without Java.
 *
 *   fi_write_stream server PROVIDER PORT
 *       a passive endpoint on PORT (127.0.0.1) and a TCP listener on PORT + 1; serves clients one
 *       after the other until killed: registers 64 MiB for remote writes, names it in the accept's
 *       private data, and progresses the connection in fi_cq_sread until the client leaves; the
 *       TCP listener reads each stream into a 64 MiB buffer until its end
 *   fi_write_stream client PROVIDER HOST PORT SIZE [MILLIS [ROUNDS [WINDOW [COMPLETION [WAIT]]]]]
 *       alternating rounds of MILLIS (default 500) of each stream, ROUNDS (default 4) of each:
 *       RDMA writes of SIZE bytes, WINDOW (default 128) in flight, each posted with
 *       COMPLETION (delivery: FI_DELIVERY_COMPLETE, the default; transmit: FI_TRANSMIT_COMPLETE;
 *       none: no completion flag; deliveryN, e.g. delivery32: one write in N with
 *       FI_DELIVERY_COMPLETE | FI_COMPLETION, the others with neither, as a DAT provider posts
 *       suppressed writes), to rotating offsets of the server's buffer; then blocking
 *       write(2)s of SIZE-byte chunks on the TCP connection. WAIT is the wait object of the
 *       client's CQ: none (the default), fd (FI_WAIT_FD) or pollfd (FI_WAIT_POLLFD).
 *       Prints each round, then "median GB/s: write W stream S ratio R".
 *
 * Build: gcc -O2 -Wall -o fi_write_stream fi_write_stream.c -lfabric -lpthread (libfabric-dev).
 */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFFER (64UL << 20)
#define CQ_BATCH 64

struct target {
    uint64_t address;
    uint64_t key;
};

static void die(const char *what, long code) {
    fprintf(stderr, "fi_write_stream: %s: %s (%ld)\n", what, code < 0 ? fi_strerror((int) -code) : "", code);
    exit(1);
}

#define CHECK(call) do { long rc_ = (long) (call); if (rc_ < 0) die(#call, rc_); } while (0)

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct fi_info *info_for(const char *provider, const char *node, const char *port, int source) {
    struct fi_info *hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_RMA;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(provider);
    struct fi_info *info;
    CHECK(fi_getinfo(FI_VERSION(1, 17), node, port, source ? FI_SOURCE : 0, hints, &info));
    fi_freeinfo(hints);
    return info;
}

/* The objects of one connected endpoint. */
struct conn {
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    char *buffer;
};

static void open_endpoint(struct conn *c, struct fi_info *info, enum fi_wait_obj wait) {
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1024, .wait_obj = wait};
    CHECK(fi_domain(c->fabric, info, &c->domain, NULL));
    CHECK(fi_cq_open(c->domain, &cq_attr, &c->cq, NULL));
    CHECK(fi_endpoint(c->domain, info, &c->ep, NULL));
    CHECK(fi_ep_bind(c->ep, &c->eq->fid, 0));
    CHECK(fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(c->ep, &c->cq->fid, FI_RECV));
    CHECK(fi_enable(c->ep));
    if (posix_memalign((void **) &c->buffer, 4096, BUFFER) != 0) {
        die("posix_memalign", 0);
    }
    memset(c->buffer, 0, BUFFER);
    CHECK(fi_mr_reg(c->domain, c->buffer, BUFFER, FI_READ | FI_WRITE | FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &c->mr, NULL));
}

static void close_endpoint(struct conn *c) {
    fi_close(&c->ep->fid);
    fi_close(&c->mr->fid);
    fi_close(&c->cq->fid);
    fi_close(&c->domain->fid);
    free(c->buffer);
}

/* An EQ event, waited for; its CM entry's private data, if any, lands in data. */
static uint32_t eq_wait(struct fid_eq *eq, void *data, size_t size, struct fi_info **info) {
    struct {
        struct fi_eq_cm_entry entry;
        uint8_t data[256];
    } ev;
    uint32_t event;
    ssize_t n = fi_eq_sread(eq, &event, &ev, sizeof ev, -1, 0);
    if (n == -FI_EAVAIL) {
        struct fi_eq_err_entry err = {0};
        fi_eq_readerr(eq, &err, 0);
        die(fi_eq_strerror(eq, err.prov_errno, err.err_data, NULL, 0), -err.err);
    }
    CHECK(n);
    if (data != NULL && (size_t) n >= sizeof ev.entry + size) {
        memcpy(data, ev.data, size);
    }
    if (info != NULL) {
        *info = ev.entry.info;
    }
    return event;
}

/* ---- server ------------------------------------------------------------------------------ */

static void *stream_sink(void *arg) {
    int listener = (int) (intptr_t) arg;
    char *sink = malloc(BUFFER);
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) {
            continue;
        }
        while (read(fd, sink, BUFFER) > 0) {
        }
        close(fd);
    }
    return NULL;
}

static int tcp_listener(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *) &a, sizeof a) != 0 || listen(fd, 4) != 0) {
        perror("fi_write_stream: the TCP listener");
        exit(1);
    }
    return fd;
}

static int serve(const char *provider, const char *port) {
    pthread_t sink;
    pthread_create(&sink, NULL, stream_sink, (void *) (intptr_t) tcp_listener(atoi(port) + 1));
    struct fi_info *info = info_for(provider, "127.0.0.1", port, 1);
    struct conn c = {0};
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    struct fid_pep *pep;
    CHECK(fi_fabric(info->fabric_attr, &c.fabric, NULL));
    CHECK(fi_eq_open(c.fabric, &eq_attr, &c.eq, NULL));
    CHECK(fi_passive_ep(c.fabric, info, &pep, NULL));
    CHECK(fi_pep_bind(pep, &c.eq->fid, 0));
    CHECK(fi_listen(pep));
    printf("serving %s on 127.0.0.1:%s, TCP stream on %d\n", provider, port, atoi(port) + 1);
    fflush(stdout);
    for (;;) {
        struct fi_info *request;
        if (eq_wait(c.eq, NULL, 0, &request) != FI_CONNREQ) {
            continue;
        }
        open_endpoint(&c, request, FI_WAIT_UNSPEC);
        /* offsets into the region unless the provider asks for virtual addresses */
        uint64_t base = request->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t) (uintptr_t) c.buffer : 0;
        struct target t = {base, fi_mr_key(c.mr)};
        CHECK(fi_accept(c.ep, &t, sizeof t));
        fi_freeinfo(request);
        if (eq_wait(c.eq, NULL, 0, NULL) != FI_CONNECTED) {
            die("the accepted connection did not establish", 0);
        }
        for (;;) {
            struct fi_cq_entry entries[CQ_BATCH];
            fi_cq_sread(c.cq, entries, CQ_BATCH, NULL, 100); /* progress; a target's write completes nothing here */
            uint32_t event;
            struct fi_eq_cm_entry entry;
            if (fi_eq_read(c.eq, &event, &entry, sizeof entry, 0) > 0 && event == FI_SHUTDOWN) {
                break;
            }
        }
        close_endpoint(&c);
    }
    return 0;
}

/* ---- client ------------------------------------------------------------------------------ */

static int reap(struct fid_cq *cq) {
    struct fi_cq_entry entries[CQ_BATCH];
    ssize_t n = fi_cq_read(cq, entries, CQ_BATCH);
    if (n == -FI_EAGAIN) {
        return 0;
    }
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        die(fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0), -err.err);
    }
    CHECK(n);
    return (int) n;
}

/* every: one write in this many asks for a completion, which then counts them all */
static double write_round(struct conn *c, struct target t, size_t size, int window, uint64_t flags, int every, double seconds) {
    size_t slots = BUFFER / size < (size_t) window ? BUFFER / size : (size_t) window;
    void *desc = fi_mr_desc(c->mr);
    long posted = 0;
    long completed = 0;
    double start = now_seconds();
    double end = start + seconds;
    while (now_seconds() < end || posted % every != 0) {
        while (posted - completed < window) {
            size_t slot = posted % slots;
            struct iovec iov = {c->buffer + slot * size, size};
            struct fi_rma_iov rma = {t.address + slot * size, size, t.key};
            struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .rma_iov = &rma, .rma_iov_count = 1};
            ssize_t rc = fi_writemsg(c->ep, &msg, posted % every == every - 1 ? flags | FI_COMPLETION : 0);
            if (rc == -FI_EAGAIN) {
                break;
            }
            CHECK(rc);
            posted++;
        }
        completed += (long) reap(c->cq) * every;
    }
    double elapsed = now_seconds() - start;
    while (completed < posted) {
        completed += (long) reap(c->cq) * every;
    }
    return completed * (double) size / elapsed / 1e9;
}

static double stream_round(int fd, const char *buffer, size_t size, double seconds) {
    long written = 0;
    double start = now_seconds();
    double end = start + seconds;
    while (now_seconds() < end) {
        size_t off = 0;
        while (off < size) {
            ssize_t n = write(fd, buffer + off, size - off);
            if (n <= 0) {
                perror("fi_write_stream: write");
                exit(1);
            }
            off += n;
        }
        written++;
    }
    return written * (double) size / (now_seconds() - start) / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static size_t parse_size(const char *s) {
    char *end;
    size_t n = strtoul(s, &end, 10);
    return *end == 'K' ? n << 10 : *end == 'M' ? n << 20 : n;
}

static int client(int argc, char **argv) {
    const char *provider = argv[2];
    const char *host = argv[3];
    const char *port = argv[4];
    size_t size = parse_size(argv[5]);
    double seconds = (argc > 6 ? atoi(argv[6]) : 500) / 1000.0;
    int rounds = argc > 7 ? atoi(argv[7]) : 4;
    int window = argc > 8 ? atoi(argv[8]) : 128;
    const char *completion = argc > 9 ? argv[9] : "delivery";
    const char *wait = argc > 10 ? argv[10] : "none";
    int every = strncmp(completion, "delivery", 8) == 0 && completion[8] ? atoi(completion + 8) : 1;
    uint64_t flags = strncmp(completion, "delivery", 8) == 0 ? FI_DELIVERY_COMPLETE
            : strcmp(completion, "transmit") == 0 ? FI_TRANSMIT_COMPLETE : 0;
    if (size == 0 || size > BUFFER || rounds < 1 || rounds > 100 || window < 1 || every < 1 || window % every != 0) {
        fprintf(stderr, "fi_write_stream: SIZE 1..64M, ROUNDS 1..100, WINDOW 1 or more, deliveryN with N dividing WINDOW\n");
        return 2;
    }

    struct fi_info *info = info_for(provider, host, port, 0);
    struct conn c = {0};
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    CHECK(fi_fabric(info->fabric_attr, &c.fabric, NULL));
    CHECK(fi_eq_open(c.fabric, &eq_attr, &c.eq, NULL));
    open_endpoint(&c, info, strcmp(wait, "fd") == 0 ? FI_WAIT_FD : strcmp(wait, "pollfd") == 0 ? FI_WAIT_POLLFD : FI_WAIT_NONE);
    CHECK(fi_connect(c.ep, info->dest_addr, NULL, 0));
    struct target t;
    if (eq_wait(c.eq, &t, sizeof t, NULL) != FI_CONNECTED) {
        die("the connection did not establish", 0);
    }

    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(port) + 1)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) != 0) {
        perror("fi_write_stream: the TCP stream");
        return 1;
    }

    write_round(&c, t, size, window, flags, every, seconds); /* warm-ups */
    stream_round(fd, c.buffer, size, seconds);
    double writes[100], streams[100];
    for (int r = 0; r < rounds; r++) {
        writes[r] = write_round(&c, t, size, window, flags, every, seconds);
        streams[r] = stream_round(fd, c.buffer, size, seconds);
        printf("round %d: write %.3f GB/s, stream %.3f GB/s\n", r + 1, writes[r], streams[r]);
    }
    double w = median(writes, rounds), s = median(streams, rounds);
    printf("%s %zu B, window %d, %s completion: median GB/s: write %.3f stream %.3f ratio %.2f\n", provider, size, window,
            completion, w, s, w / s);
    close(fd);
    fi_shutdown(c.ep, 0);
    close_endpoint(&c);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "server") == 0) {
        return serve(argv[2], argv[3]);
    }
    if (argc >= 6 && argc <= 11 && strcmp(argv[1], "client") == 0) {
        return client(argc, argv);
    }
    fprintf(stderr, "usage: fi_write_stream server PROVIDER PORT\n"
                    "       fi_write_stream client PROVIDER HOST PORT SIZE [MILLIS [ROUNDS [WINDOW [delivery[N]|transmit|none [none|fd|pollfd]]]]]\n");
    return 2;
}
