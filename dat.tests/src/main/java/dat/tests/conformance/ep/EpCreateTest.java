package dat.tests.conformance.ep;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.ProtectionZone;
import dat.api.ServiceType;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_ep_create(3DAT). */
class EpCreateTest {

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_SUCCESS: the Endpoint is unconnected, with its PZ, EVDs and at least the requested attributes")
    void create(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        EventDispatcher recv = t.evd(EvdFlags.DTO);
        EventDispatcher request = t.evd(EvdFlags.DTO);
        EventDispatcher connect = t.evd(EvdFlags.CONNECTION);
        EpAttributes requested = t.epAttributes();
        Endpoint ep = t.ia().createEndpoint(pz, recv, request, connect, requested);
        assertThat(ep.handleType()).as(t.at("handle type")).isEqualTo(HandleType.EP);
        t.expectState(ep, EpState.UNCONNECTED, "a new Endpoint");
        EpParams params = ep.query();
        assertThat(params.ia()).as(t.at("ia_handle")).isSameAs(t.ia());
        assertThat(params.pz()).as(t.at("pz_handle")).isSameAs(pz);
        assertThat(params.recvEvd()).as(t.at("recv_evd_handle")).isSameAs(recv);
        assertThat(params.requestEvd()).as(t.at("request_evd_handle")).isSameAs(request);
        assertThat(params.connectEvd()).as(t.at("connect_evd_handle")).isSameAs(connect);
        EpAttributes actual = params.attributes();
        assertThat(actual.serviceType()).as(t.at("service_type")).isEqualTo(ServiceType.RC);
        assertThat(actual.maxRecvDtos()).as(t.at("max_recv_dtos")).isGreaterThanOrEqualTo(requested.maxRecvDtos());
        assertThat(actual.maxRequestDtos()).as(t.at("max_request_dtos")).isGreaterThanOrEqualTo(requested.maxRequestDtos());
        assertThat(actual.maxRecvIov()).as(t.at("max_recv_iov")).isGreaterThanOrEqualTo(requested.maxRecvIov());
        assertThat(actual.maxRequestIov()).as(t.at("max_request_iov")).isGreaterThanOrEqualTo(requested.maxRequestIov());
        assertThat(actual.maxMessageSize()).as(t.at("max_message_size")).isGreaterThanOrEqualTo(requested.maxMessageSize());
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_SUCCESS: NULL attributes give the provider's defaults, which dat_ep_query reports")
    void defaults(IaUnderTest t) {
        Endpoint ep = t.ia().createEndpoint(t.pz(), t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), null);
        EpAttributes attributes = ep.query().attributes();
        assertThat(attributes).as(t.at("the attributes the provider filled in")).isNotNull();
        assertThat(attributes.serviceType()).as(t.at("service_type")).isEqualTo(ServiceType.RC);
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_SUCCESS: DAT_HANDLE_NULL EVDs say the consumer is not interested in those events")
    void nullEvds(IaUnderTest t) {
        Endpoint ep = t.ia().createEndpoint(t.pz(), null, null, null, t.epAttributes());
        EpParams params = ep.query();
        assertThat(params.recvEvd()).as(t.at("recv_evd_handle")).isNull();
        assertThat(params.requestEvd()).as(t.at("request_evd_handle")).isNull();
        assertThat(params.connectEvd()).as(t.at("connect_evd_handle")).isNull();
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_HANDLE: a freed PZ")
    void freedPz(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_create in a freed PZ", () -> t.ep(pz, null, null, null));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_HANDLE: a freed EVD")
    void freedEvd(IaUnderTest t) {
        EventDispatcher recv = t.evd(EvdFlags.DTO);
        recv.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_create with a freed receive EVD", () -> t.ep(t.pz(), recv, null, null));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_HANDLE: a PZ of another IA instance")
    void foreignPz(IaUnderTest t) {
        ProtectionZone foreign = t.peer().createProtectionZone();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ep_create with a PZ of another IA instance", () -> t.ep(foreign, null, null, null));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_PARAMETER: max_recv_dtos beyond the IA's max_dto_per_ep")
    void tooManyDtos(IaUnderTest t) {
        int max = t.attributes().maxDtoPerEp();
        t.requireFeasible(max < Integer.MAX_VALUE, "max_dto_per_ep is unbounded");
        EpAttributes attributes = t.epAttributesBuilder().maxRecvDtos(max + 1).build();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_create with max_recv_dtos " + (max + 1),
                () -> t.ia().createEndpoint(t.pz(), t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), attributes));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_INVALID_PARAMETER: max_message_size beyond the IA's max_message_size")
    void messageTooLarge(IaUnderTest t) {
        long max = t.attributes().maxMessageSize();
        t.requireFeasible(max < Long.MAX_VALUE, "max_message_size is unbounded");
        EpAttributes attributes = t.epAttributesBuilder().maxMessageSize(max + 1).build();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ep_create with max_message_size " + (max + 1),
                () -> t.ia().createEndpoint(t.pz(), t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), attributes));
    }

    @ConformanceTest
    @DisplayName("dat_ep_create(3DAT) DAT_MODEL_NOT_SUPPORTED: a QoS the provider does not support")
    void createWithUnsupportedQos(IaUnderTest t) {
        int qos = t.unsupportedQos();
        EpAttributes attributes = t.epAttributesBuilder().qos(qos).build();
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_create with QoS 0x" + Integer.toHexString(qos),
                () -> t.ia().createEndpoint(t.pz(), t.evd(EvdFlags.DTO), t.evd(EvdFlags.DTO), t.evd(EvdFlags.CONNECTION), attributes));
    }
}
