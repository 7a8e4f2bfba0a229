package dat.provider.ofi.internal;

import dat.api.CnoParams;
import dat.api.ConsumerNotificationObject;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.HandleType;
import dat.api.WaitProxyAgent;
import dat.provider.support.CnoWaits;

/**
 * A CNO, in Java ({@link CnoWaits}): attached EVDs trigger it when a completion or event arrives (the IA's event thread watches the CQ of every EVD with a CNO); a waiter looks at every attached EVD before it parks, and again after each wake-up, so no completion is missed.
 */
final class OfiCno extends OfiHandle implements ConsumerNotificationObject {

    private final CnoWaits<OfiEvd> waits;

    OfiCno(OfiIa ia, WaitProxyAgent agent) {
        super(ia, HandleType.CNO, DatReturn.INVALID_HANDLE_CNO);
        this.waits = new CnoWaits<>(agent, evd -> evd.isEnabled() && evd.hasEvents(), () -> freed || !ia.isUsable());
        ia.cnos.add(this);
    }

    void attach(OfiEvd evd) {
        waits.attach(evd);
    }

    void detach(OfiEvd evd) {
        waits.detach(evd);
    }

    void trigger(OfiEvd evd) {
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
