package dat.tests.switching;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatException;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.ProviderDTO;
import dat.api.RmrTriplet;
import dat.switching.Accounting;
import dat.switching.DtoLedger;
import dat.switching.IaSession;
import dat.switching.IaSwitcher;
import dat.switching.LossContext;
import dat.switching.SwitchCause;
import dat.tests.ext.Link;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application for the switching tests: on each IA the switcher gives it, it connects two
 * Endpoints of that IA to each other and a worker thread keeps sends (each with its receive) and
 * RDMA writes in flight, checking every message; the ledger of each IA counts what was posted and
 * how each operation completed. When the IA goes, the worker reaps what is left (the flushed
 * operations) and {@link #lost} reports the ledger.
 */
final class LoopbackTraffic implements IaSession<LoopbackTraffic.OnIa> {

    /** The most operations in flight at once. */
    private static final int WINDOW = 16;
    private static final long MESSAGE = 256;
    /** Receives kept posted beyond the sends in flight. */
    private static final int RECEIVES_AHEAD = 8;

    /** The application's state on one IA: the connected link, its IOVs, the ledger. */
    static final class OnIa {
        final String iaName;
        final Link link;
        final LmrTriplet[] sendIov;
        final LmrTriplet[] recvIov;
        final LmrTriplet[] writeIov;
        final RmrTriplet target;
        final DtoLedger ledger = new DtoLedger();
        final CountDownLatch drained = new CountDownLatch(1);
        volatile boolean stop;

        OnIa(String iaName, Link link) {
            this.iaName = iaName;
            this.link = link;
            for (int i = 0; i < MESSAGE; i++) {
                link.active.buffer.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            sendIov = new LmrTriplet[] {link.active.segment(0, MESSAGE)};
            recvIov = new LmrTriplet[] {link.passive.segment(0, MESSAGE)};
            writeIov = new LmrTriplet[] {link.active.segment(MESSAGE, MESSAGE)};
            target = link.passive.remote(2048, MESSAGE);
        }
    }

    /** Messages received intact, over every IA. */
    final AtomicLong roundTrips = new AtomicLong();
    /** Messages received with wrong bytes or length: must stay 0. */
    final AtomicLong corrupt = new AtomicLong();
    /** What the last {@link #lost} was told and answered. */
    volatile SwitchCause lastCause;
    volatile Accounting lastAccounting;
    private volatile boolean finished;
    private Thread worker;

    @Override
    public OnIa open(InterfaceAdapter ia, ProviderDTO provider) {
        return new OnIa(provider.iaName(), Link.onOneIa(ia, MemPrivileges.ALL));
    }

    @Override
    public Accounting lost(OnIa session, LossContext context) throws InterruptedException {
        session.stop = true; // a working IA (reselect, close) is quiesced; a failed one is drained anyway
        long waitNanos = Duration.between(Instant.now(), context.deadline()).toNanos();
        session.drained.await(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        Accounting accounting = session.ledger.accounting();
        lastCause = context.cause();
        lastAccounting = accounting;
        return accounting;
    }

    /** Starts the worker, which follows the switcher's sessions until {@link #finish}. */
    void start(IaSwitcher<OnIa> switcher) {
        worker = Thread.ofPlatform().name("switching-test-traffic").daemon().start(() -> {
            OnIa done = null;
            while (!finished) {
                OnIa session;
                try {
                    session = switcher.awaitSession(Duration.ofMillis(200));
                    if (session != null && session == done) {
                        Thread.sleep(5); // the switcher has not yet noticed that this IA is gone
                        continue;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (session != null) {
                    runUntilGone(session);
                    done = session;
                }
            }
        });
    }

    void finish() throws InterruptedException {
        finished = true;
        if (worker != null) {
            worker.join(20_000);
        }
    }

    /** Keeps traffic going on one IA until it goes (or the session is stopped), then drains it. */
    private void runUntilGone(OnIa s) {
        Link link = s.link;
        LmrTriplet[] sendIov = s.sendIov;
        LmrTriplet[] recvIov = s.recvIov;
        LmrTriplet[] writeIov = s.writeIov;
        RmrTriplet target = s.target;
        DatEvent event = new DatEvent();
        boolean gone = false;
        long cookie = 0;
        try {
            // receives posted ahead of the sends: at any time some are outstanding, so a provider that
            // leaves must flush them
            for (int i = 0; i < RECEIVES_AHEAD && !gone; i++) {
                gone |= post(s, link.passive.ep.postRecv(1, recvIov, ++cookie, CompletionFlags.DEFAULT));
            }
            while (!gone && !s.stop && !finished) {
                if (s.ledger.outstanding() < WINDOW + RECEIVES_AHEAD) {
                    gone |= post(s, link.passive.ep.postRecv(1, recvIov, ++cookie, CompletionFlags.DEFAULT));
                    gone |= post(s, link.active.ep.postSend(1, sendIov, ++cookie, CompletionFlags.DEFAULT));
                    gone |= post(s, link.active.ep.postRdmaWrite(1, writeIov, ++cookie, target, CompletionFlags.DEFAULT));
                }
                gone |= reap(s, link.active.requestEvd, event, false);
                gone |= reap(s, link.passive.recvEvd, event, true);
                if (s.ledger.outstanding() >= WINDOW + RECEIVES_AHEAD) {
                    Thread.onSpinWait();
                }
            }
            if (!gone) {
                // quiescing a working IA: disconnecting flushes the receives posted ahead
                try {
                    link.active.ep.disconnect(CloseFlag.ABRUPT);
                } catch (DatException e) {
                    // already disconnected, or the IA went meanwhile: its operations complete either way
                }
            }
            // drain: every posted operation completes, successfully or flushed, before the IA is left
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (s.ledger.outstanding() > 0 && System.nanoTime() < deadline) {
                boolean requestGone = reap(s, link.active.requestEvd, event, false);
                boolean recvGone = reap(s, link.passive.recvEvd, event, true);
                if (requestGone && recvGone) {
                    break; // both EVDs answer DAT_INVALID_HANDLE: nothing more will come
                }
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            s.drained.countDown();
        }
    }

    /** Records a post; returns whether the IA is gone. */
    private static boolean post(OnIa s, int status) {
        if (status == DatReturn.SUCCESS) {
            s.ledger.posted();
            return false;
        }
        int type = DatReturn.typeOf(status);
        return type == DatReturn.INVALID_HANDLE || type == DatReturn.INVALID_STATE; // failed IA, or broken connection
    }

    /** Reaps an EVD's completions; returns whether the EVD is gone. */
    private boolean reap(OnIa s, EventDispatcher evd, DatEvent event, boolean receives) {
        while (true) {
            int status = evd.dequeue(event);
            if (status != DatReturn.SUCCESS) {
                int type = DatReturn.typeOf(status);
                return type == DatReturn.INVALID_HANDLE || type == DatReturn.ABORT;
            }
            if (event.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
                continue;
            }
            s.ledger.completed(event.status());
            if (receives && event.status() == DtoCompletionStatus.SUCCESS) {
                if (event.transferredLength() == MESSAGE && intact(s)) {
                    roundTrips.incrementAndGet();
                } else {
                    corrupt.incrementAndGet();
                }
            }
        }
    }

    private static boolean intact(OnIa s) {
        for (int i = 0; i < MESSAGE; i++) {
            if (s.link.passive.buffer.get(ValueLayout.JAVA_BYTE, i) != (byte) i) {
                return false;
            }
        }
        return true;
    }
}
