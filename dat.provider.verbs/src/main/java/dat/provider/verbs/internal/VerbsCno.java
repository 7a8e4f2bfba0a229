package dat.provider.verbs.internal;

import dat.api.CnoParams;
import dat.api.ConsumerNotificationObject;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.WaitProxyAgent;
import dat.provider.support.CnoWaits;

/**
 * A CNO, in Java ({@link CnoWaits}): attached EVDs trigger it from the IA's event thread (completion channel or queued event); a waiter arms every attached CQ before it parks, so no completion is missed.
 */
final class VerbsCno extends VerbsHandle implements ConsumerNotificationObject {

    private final CnoWaits<VerbsEvd> waits;

    VerbsCno(VerbsIa ia, WaitProxyAgent agent) {
        super(ia, HandleType.CNO, DatReturn.INVALID_HANDLE_CNO);
        this.waits = new CnoWaits<>(agent, evd -> evd.isEnabled() && evd.armForCno(), () -> freed || !ia.isUsable());
        ia.cnos.add(this);
    }

    void attach(VerbsEvd evd) {
        waits.attach(evd);
    }

    void detach(VerbsEvd evd) {
        waits.detach(evd);
    }

    void trigger(VerbsEvd evd) {
        waits.trigger(evd);
    }

    @Override
    public EventDispatcher await(long timeoutMicros) {
        checkOpen();
        return waits.await(timeoutMicros);
    }

    @Override
    public void modifyAgent(WaitProxyAgent newAgent) {
        checkOpen();
        waits.agent(newAgent);
    }

    @Override
    public CnoParams query(int cnoParamMask) {
        checkOpen();
        return waits.params(ia, cnoParamMask);
    }

    @Override
    public void close() {
        if (freed || !ia.isUsable()) {
            return;
        }
        waits.checkFree();
        destroy();
    }

    void destroy() {
        freed = true;
        waits.wakeWaiter();
        ia.cnos.remove(this);
    }
}
