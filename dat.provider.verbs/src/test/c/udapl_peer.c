/*
 * A uDAPL peer on OFED's libdat2 (DAT 2.0, the cma provider libdaplofa over rdma_cm), for the
 * interop tests of the Java verbs provider (OfedInteropTest). Both roles of one exchange:
 *
 *   udapl-peer server IA QUALIFIER        a PSP on QUALIFIER: rejects the first request, accepts
 *                                         the second, runs the exchange, waits for the disconnect
 *   udapl-peer client IA ADDRESS QUALIFIER [REJECT-DATA]
 *                                         connects twice: the first is rejected (with REJECT-DATA
 *                                         first in its private data, when given; a DAT 1.2 peer
 *                                         rejects without data), the second runs the exchange
 *                                         and disconnects
 *
 * The exchange (the Java side mirrors it; role 1 is the server, role 2 the client):
 *  1. the first request carries "REJECT-ME"; the server rejects it with "NOT-NOW", which the
 *     client must receive as DAT_CONNECTION_EVENT_PEER_REJECTED with that private data;
 *  2. the second request carries 56 bytes P(i) = 7i + 1; the server accepts with 56 bytes
 *     Q(i) = 11i + 5; each side checks what it received;
 *  3. each side registers a 64 KiB buffer, fills [32 KiB, 36 KiB) with R(role), and sends its
 *     RMR triplet (16 bytes, little-endian: u64 address, u32 rmr_context, u32 length);
 *  4. with the peer's triplet it RDMA-writes 4 KiB of W(role) to the peer's [0, 4 KiB) and
 *     RDMA-reads the peer's [32 KiB, 36 KiB), which must be R(peer);
 *  5. it sends "DONE"; on the peer's "DONE" its own [0, 4 KiB) must be W(peer);
 *  6. the client disconnects; the server waits for DAT_CONNECTION_EVENT_DISCONNECTED.
 * Prints "PASS ..." lines; exits 0 when every check held, 1 with "FAIL ..." otherwise.
 * Build: gcc -O2 -Wall -o udapl-peer udapl_peer.c -ldat2 (libdapl-dev).
 */
#include <dat2/udat.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_US (20 * 1000 * 1000)
#define BUFFER (64 * 1024)
#define CHUNK 4096
#define WRITE_AT 0
#define READ_AT (32 * 1024)
#define LANDING_AT (16 * 1024)
#define PDATA 56

static DAT_IA_HANDLE ia;
static DAT_PZ_HANDLE pz;
static DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL, dto_evd, conn_evd, cr_evd;
static DAT_LMR_HANDLE lmr, msg_lmr;
static DAT_LMR_CONTEXT lkey, msg_lkey;
static DAT_RMR_CONTEXT rkey, msg_rkey;
static unsigned char *buffer, *msgs; /* msgs: [0,16) my triplet, [16,32) the peer's, [32,48) DONE out, [48,64) DONE in */

static void fail(const char *what, DAT_RETURN status)
{
	const char *major = "", *minor = "";
	if (status != DAT_SUCCESS)
		dat_strerror(status, &major, &minor);
	printf("FAIL %s %s %s\n", what, major, minor);
	fflush(stdout);
	exit(1);
}

static void check(DAT_RETURN status, const char *what)
{
	if (status != DAT_SUCCESS)
		fail(what, status);
}

static unsigned char pattern(char kind, int role, int i)
{
	switch (kind) {
	case 'P': return (unsigned char)(7 * i + 1);
	case 'Q': return (unsigned char)(11 * i + 5);
	case 'W': return (unsigned char)(13 * i + 3 * role + 1);
	default:  return (unsigned char)(17 * i + 5 * role + 2); /* 'R' */
	}
}

static void expect_pattern(const unsigned char *data, int length, char kind, int role, const char *what)
{
	for (int i = 0; i < length; i++) {
		if (data[i] != pattern(kind, role, i)) {
			printf("FAIL %s: byte %d is 0x%02x, expected 0x%02x\n", what, i, data[i], pattern(kind, role, i));
			fflush(stdout);
			exit(1);
		}
	}
	printf("PASS %s\n", what);
}

static DAT_EVENT await_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER expected, const char *what)
{
	DAT_EVENT event;
	DAT_COUNT more;
	check(dat_evd_wait(evd, WAIT_US, 1, &event, &more), what);
	if (event.event_number != expected) {
		printf("FAIL %s: event 0x%x, expected 0x%x\n", what, event.event_number, expected);
		fflush(stdout);
		exit(1);
	}
	if (expected == DAT_DTO_COMPLETION_EVENT && event.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		printf("FAIL %s: DTO status %d\n", what, event.event_data.dto_completion_event_data.status);
		fflush(stdout);
		exit(1);
	}
	return event;
}

/* Waits until the DTO completion of a cookie arrived; completions of others that come first are remembered. */
static int completed[16];

static void await_cookie(int cookie, const char *what)
{
	while (!completed[cookie]) {
		DAT_EVENT e = await_event(dto_evd, DAT_DTO_COMPLETION_EVENT, what);
		uint64_t done = e.event_data.dto_completion_event_data.user_cookie.as_64;
		if (done < 16)
			completed[done] = 1;
	}
}

static DAT_EP_HANDLE new_ep(void)
{
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR attr;
	memset(&attr, 0, sizeof attr);
	attr.service_type = DAT_SERVICE_TYPE_RC;
	attr.max_message_size = BUFFER;
	attr.max_rdma_size = BUFFER;
	attr.max_recv_dtos = 8;
	attr.max_request_dtos = 8;
	attr.max_recv_iov = 1;
	attr.max_request_iov = 1;
	attr.max_rdma_read_in = 4;
	attr.max_rdma_read_out = 4;
	attr.max_rdma_read_iov = 1;
	attr.max_rdma_write_iov = 1;
	attr.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	attr.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	check(dat_ep_create(ia, pz, dto_evd, dto_evd, conn_evd, &attr, &ep), "dat_ep_create");
	return ep;
}

static DAT_LMR_TRIPLET segment(DAT_LMR_CONTEXT context, unsigned char *at, int length)
{
	DAT_LMR_TRIPLET t = {(DAT_VADDR)(uintptr_t)at, (DAT_SEG_LENGTH)length, context};
	return t;
}

static void post_recvs(DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET triplet = segment(msg_lkey, msgs + 16, 16), done = segment(msg_lkey, msgs + 48, 16);
	DAT_DTO_COOKIE cookie = {.as_64 = 1};
	check(dat_ep_post_recv(ep, 1, &triplet, cookie, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_recv (triplet)");
	cookie.as_64 = 2;
	check(dat_ep_post_recv(ep, 1, &done, cookie, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_recv (DONE)");
}

/* Steps 3 to 5, on a connected Endpoint whose two receives are posted. */
static void exchange(DAT_EP_HANDLE ep, int role)
{
	DAT_DTO_COOKIE cookie = {.as_64 = 10};
	uint64_t address = (uint64_t)(uintptr_t)buffer;
	uint32_t context = rkey, length = BUFFER;
	memcpy(msgs, &address, 8);
	memcpy(msgs + 8, &context, 4);
	memcpy(msgs + 12, &length, 4);
	DAT_LMR_TRIPLET mine = segment(msg_lkey, msgs, 16);
	check(dat_ep_post_send(ep, 1, &mine, cookie, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_send (triplet)");
	await_cookie(10, "the triplet send");
	await_cookie(1, "the peer's triplet");
	DAT_RMR_TRIPLET peer;
	uint64_t peer_address;
	uint32_t peer_context, peer_length;
	memcpy(&peer_address, msgs + 16, 8);
	memcpy(&peer_context, msgs + 24, 4);
	memcpy(&peer_length, msgs + 28, 4);
	printf("PASS received the peer's triplet 0x%llx len %u ctx 0x%x\n", (unsigned long long)peer_address, peer_length,
	       peer_context);

	for (int i = 0; i < CHUNK; i++)
		buffer[LANDING_AT + CHUNK + i] = pattern('W', role, i); /* the write's source, after the landing area */
	DAT_LMR_TRIPLET source = segment(lkey, buffer + LANDING_AT + CHUNK, CHUNK);
	peer.virtual_address = peer_address + WRITE_AT;
	peer.segment_length = CHUNK;
	peer.rmr_context = peer_context;
	cookie.as_64 = 11;
	check(dat_ep_post_rdma_write(ep, 1, &source, cookie, &peer, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_rdma_write");
	await_cookie(11, "the RDMA write");
	DAT_LMR_TRIPLET landing = segment(lkey, buffer + LANDING_AT, CHUNK);
	peer.virtual_address = peer_address + READ_AT;
	cookie.as_64 = 12;
	check(dat_ep_post_rdma_read(ep, 1, &landing, cookie, &peer, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_rdma_read");
	await_cookie(12, "the RDMA read");
	expect_pattern(buffer + LANDING_AT, CHUNK, 'R', 3 - role, "the RDMA read of the peer's advertised buffer");

	memcpy(msgs + 32, "DONE", 4);
	DAT_LMR_TRIPLET done = segment(msg_lkey, msgs + 32, 4);
	cookie.as_64 = 13;
	check(dat_ep_post_send(ep, 1, &done, cookie, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_send (DONE)");
	await_cookie(13, "the DONE send");
	await_cookie(2, "the peer's DONE");
	if (memcmp(msgs + 48, "DONE", 4) != 0)
		fail("the peer's DONE message", DAT_SUCCESS);
	expect_pattern(buffer + WRITE_AT, CHUNK, 'W', 3 - role, "the peer's RDMA write into the advertised buffer");
}

static void setup(char *ia_name, int role)
{
	check(dat_ia_open(ia_name, 8, &async_evd, &ia), "dat_ia_open");
	check(dat_pz_create(ia, &pz), "dat_pz_create");
	check(dat_evd_create(ia, 32, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto_evd), "dat_evd_create (DTO)");
	check(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn_evd), "dat_evd_create (connection)");
	check(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd), "dat_evd_create (CR)");
	buffer = aligned_alloc(4096, BUFFER);
	msgs = aligned_alloc(4096, 4096);
	memset(buffer, 0, BUFFER);
	memset(msgs, 0, 4096);
	for (int i = 0; i < CHUNK; i++)
		buffer[READ_AT + i] = pattern('R', role, i);
	DAT_REGION_DESCRIPTION region = {.for_va = buffer};
	DAT_VLEN registered;
	DAT_VADDR at;
	check(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, BUFFER, pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lkey,
			     &rkey, &registered, &at), "dat_lmr_create");
	region.for_va = msgs;
	check(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, 4096, pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &msg_lmr,
			     &msg_lkey, &msg_rkey, &registered, &at), "dat_lmr_create (messages)");
}

static int server(DAT_CONN_QUAL qualifier)
{
	DAT_PSP_HANDLE psp;
	check(dat_psp_create(ia, qualifier, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp), "dat_psp_create");
	printf("READY %llu\n", (unsigned long long)qualifier);
	fflush(stdout);

	DAT_EVENT e = await_event(cr_evd, DAT_CONNECTION_REQUEST_EVENT, "the first connection request");
	DAT_CR_PARAM cr;
	check(dat_cr_query(e.event_data.cr_arrival_event_data.cr_handle, DAT_CR_FIELD_ALL, &cr), "dat_cr_query");
	if (cr.private_data_size < 9 || memcmp(cr.private_data, "REJECT-ME", 9) != 0)
		fail("the first request's private data is not REJECT-ME", DAT_SUCCESS);
	printf("PASS the first request carries REJECT-ME (%d bytes of private data)\n", cr.private_data_size);
	check(dat_cr_reject(e.event_data.cr_arrival_event_data.cr_handle, 7, "NOT-NOW"), "dat_cr_reject");

	DAT_EP_HANDLE ep = new_ep();
	post_recvs(ep);
	e = await_event(cr_evd, DAT_CONNECTION_REQUEST_EVENT, "the second connection request");
	check(dat_cr_query(e.event_data.cr_arrival_event_data.cr_handle, DAT_CR_FIELD_ALL, &cr), "dat_cr_query");
	if (cr.private_data_size < PDATA)
		fail("the second request carries less than 56 bytes of private data", DAT_SUCCESS);
	expect_pattern(cr.private_data, PDATA, 'P', 0, "the second request's 56 bytes of private data");
	unsigned char accept[PDATA];
	for (int i = 0; i < PDATA; i++)
		accept[i] = pattern('Q', 0, i);
	check(dat_cr_accept(e.event_data.cr_arrival_event_data.cr_handle, ep, PDATA, accept), "dat_cr_accept");
	await_event(conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
	printf("PASS connected\n");
	exchange(ep, 1);
	await_event(conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, "the client's disconnect");
	printf("PASS disconnected by the client\n");
	return 0;
}

static int client(const char *host, DAT_CONN_QUAL qualifier, const char *reject_data)
{
	struct addrinfo *target;
	if (getaddrinfo(host, NULL, NULL, &target) != 0)
		fail("getaddrinfo", DAT_SUCCESS);
	DAT_EP_HANDLE first = new_ep();
	check(dat_ep_connect(first, (DAT_IA_ADDRESS_PTR)target->ai_addr, qualifier, WAIT_US, 9, "REJECT-ME", DAT_QOS_BEST_EFFORT,
			     DAT_CONNECT_DEFAULT_FLAG), "dat_ep_connect (to be rejected)");
	DAT_EVENT e = await_event(conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, "the reject");
	DAT_CONNECTION_EVENT_DATA *rejected = &e.event_data.connect_event_data;
	if (reject_data != NULL) {
		size_t n = strlen(reject_data);
		if (rejected->private_data == NULL || memcmp(rejected->private_data, reject_data, n) != 0)
			fail("the reject's private data is not the expected", DAT_SUCCESS);
		printf("PASS PEER_REJECTED with the peer's private data %s\n", reject_data);
	} else {
		printf("PASS PEER_REJECTED\n");
	}

	DAT_EP_HANDLE ep = new_ep();
	post_recvs(ep);
	unsigned char request[PDATA];
	for (int i = 0; i < PDATA; i++)
		request[i] = pattern('P', 0, i);
	check(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)target->ai_addr, qualifier, WAIT_US, PDATA, request, DAT_QOS_BEST_EFFORT,
			     DAT_CONNECT_DEFAULT_FLAG), "dat_ep_connect");
	e = await_event(conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
	DAT_CONNECTION_EVENT_DATA *established = &e.event_data.connect_event_data;
	if (established->private_data_size < PDATA)
		fail("the accept carries less than 56 bytes of private data", DAT_SUCCESS);
	expect_pattern(established->private_data, PDATA, 'Q', 0, "the accept's 56 bytes of private data");
	exchange(ep, 2);
	check(dat_ep_disconnect(ep, DAT_CLOSE_DEFAULT), "dat_ep_disconnect");
	await_event(conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
	printf("PASS disconnected\n");
	freeaddrinfo(target);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "server") == 0) {
		setup(argv[2], 1);
		return server(strtoull(argv[3], NULL, 0));
	}
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "client") == 0) {
		setup(argv[2], 2);
		return client(argv[3], strtoull(argv[4], NULL, 0), argc == 6 ? argv[5] : NULL);
	}
	fprintf(stderr, "usage: udapl-peer server IA QUALIFIER | client IA ADDRESS QUALIFIER [REJECT-DATA]\n");
	return 2;
}
