package dat.tests.conformance.lmr;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.HandleType;
import dat.api.InterfaceAdapter;
import dat.api.LmrParams;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.RegionDescription;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;

/** dat_lmr_create(3DAT): registering memory. */
class LmrCreateTest {

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: registers virtual memory; the registered range covers the region")
    void virtual(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        MemorySegment memory = t.memory(8192).asSlice(100, 5000);
        LocalMemoryRegion lmr = t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), 5000, pz,
                MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        assertThat(lmr.handleType()).as(t.at("handle type of the new LMR")).isEqualTo(HandleType.LMR);
        assertThat(lmr.registeredAddress()).as(t.at("registered_address is at or below the region's address"))
                .isLessThanOrEqualTo(memory.address());
        assertThat(lmr.registeredAddress() + lmr.registeredSize()).as(t.at("registered_address + registered_size covers the region"))
                .isGreaterThanOrEqualTo(memory.address() + 5000);
        assertThat(lmr.memory().address()).as(t.at("the LMR's memory is the region registered")).isEqualTo(memory.address());
        assertThat(lmr.memory().byteSize()).as(t.at("the LMR's memory size")).isEqualTo(5000);
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: without remote privileges no rmr_context is generated (NULL, 0 in Java)")
    void noRemoteContext(IaUnderTest t) {
        LocalMemoryRegion lmr = t.lmr(t.pz(), 4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        assertThat(lmr.rmrContext()).as(t.at("\"If mem_privileges does not specify remote Read and Write privileges, rmr_context is"
                + " not generated and NULL is returned\"")).isZero();
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: LMRs of different memory have different lmr_contexts")
    void distinctContexts(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        LocalMemoryRegion a = t.lmr(pz, 4096, MemPrivileges.ALL);
        LocalMemoryRegion b = t.lmr(pz, 4096, MemPrivileges.ALL);
        assertThat(a.lmrContext()).as(t.at("lmr_context of two LMRs")).isNotEqualTo(b.lmrContext());
        assertThat(a.rmrContext()).as(t.at("rmr_context of two LMRs with remote access")).isNotEqualTo(b.rmrContext());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: DAT_MEM_TYPE_LMR registers an existing LMR's memory in another PZ with other privileges")
    void ofLmr(IaUnderTest t) {
        t.requireSupported(t.provider().lmrMemTypesSupported().contains(MemoryType.LMR), "DAT_MEM_TYPE_LMR (lmr_mem_types_supported)");
        LocalMemoryRegion original = t.lmr(t.pz(), 4096, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        ProtectionZone other = t.pz();
        LocalMemoryRegion copy = t.ia().registerMemory(MemoryType.LMR, RegionDescription.ofLmr(original), 0, other,
                MemPrivileges.LOCAL_READ);
        LmrParams params = copy.query();
        assertThat(params.memType()).as(t.at("mem_type of the new LMR")).isEqualTo(MemoryType.LMR);
        assertThat(params.pz()).as(t.at("pz_handle of the new LMR")).isSameAs(other);
        assertThat(params.memPrivileges()).as(t.at("mem_privileges of the new LMR")).isEqualTo(MemPrivileges.LOCAL_READ);
        assertThat(copy.registeredAddress()).as(t.at("the new LMR covers the existing LMR's memory"))
                .isLessThanOrEqualTo(original.memory().address());
        assertThat(copy.registeredAddress() + copy.registeredSize()).as(t.at("the new LMR covers the existing LMR's memory"))
                .isGreaterThanOrEqualTo(original.memory().address() + original.memory().byteSize());
        // "Length parameter is ignored": a length above or below the LMR's changes nothing
        for (long length : new long[] {100, 8192}) {
            LocalMemoryRegion again = t.ia().registerMemory(MemoryType.LMR, RegionDescription.ofLmr(original), length, other,
                    MemPrivileges.LOCAL_READ);
            assertThat(again.registeredSize()).as(t.at("registered_size of DAT_MEM_TYPE_LMR given length " + length))
                    .isEqualTo(copy.registeredSize());
        }
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_SUCCESS: DAT_MEM_TYPE_SHARED_VIRTUAL registers platform-shared memory, in two IAs under one cookie")
    void sharedVirtual(IaUnderTest t) throws IOException {
        t.requireSupported(t.provider().lmrMemTypesSupported().contains(MemoryType.SHARED_VIRTUAL),
                "DAT_MEM_TYPE_SHARED_VIRTUAL (lmr_mem_types_supported)");
        MemorySegment shared = sharedMemory(t, 8192);
        byte[] cookie = new byte[DatConstants.LMR_COOKIE_SIZE];
        Arrays.fill(cookie, (byte) 'c');
        cookie[DatConstants.LMR_COOKIE_SIZE - 1] = 7;
        LocalMemoryRegion first = t.ia().registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(shared, cookie),
                shared.byteSize(), t.pz(), MemPrivileges.ALL);
        InterfaceAdapter other = t.open(); // another consumer of this process
        LocalMemoryRegion second = other.registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(shared, cookie),
                shared.byteSize(), other.createProtectionZone(), MemPrivileges.ALL);
        assertThat(first.query().memType()).as(t.at("mem_type of the shared LMR")).isEqualTo(MemoryType.SHARED_VIRTUAL);
        assertThat(second.memory().address()).as(t.at("both consumers' LMRs name the same memory")).isEqualTo(first.memory().address());
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_STATE: DAT_MEM_TYPE_SHARED_VIRTUAL of memory the platform did not create shared")
    void sharedVirtualNotShared(IaUnderTest t) {
        // The page's example of DAT_INVALID_STATE. In Java, platform-shared memory is a mapped file
        // (MemorySegment.isMapped()); memory of an Arena is private to the process.
        t.requireSupported(t.provider().lmrMemTypesSupported().contains(MemoryType.SHARED_VIRTUAL),
                "DAT_MEM_TYPE_SHARED_VIRTUAL (lmr_mem_types_supported)");
        MemorySegment privateMemory = t.arena().allocate(4096, DatConstants.OPTIMAL_ALIGNMENT);
        byte[] cookie = new byte[DatConstants.LMR_COOKIE_SIZE];
        t.expectError(DatReturn.INVALID_STATE, "dat_lmr_create of arena memory as DAT_MEM_TYPE_SHARED_VIRTUAL",
                () -> t.ia().registerMemory(MemoryType.SHARED_VIRTUAL, RegionDescription.sharedMemory(privateMemory, cookie), 4096,
                        t.pz(), MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: a length beyond the described region")
    void lengthBeyondRegion(IaUnderTest t) {
        MemorySegment memory = t.memory(4096);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of 8192 bytes of a 4096-byte region",
                () -> t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), 8192, t.pz(), MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: a negative length")
    void negativeLength(IaUnderTest t) {
        MemorySegment memory = t.memory(4096);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of -1 bytes",
                () -> t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), -1, t.pz(), MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: undefined memory privilege bits")
    void undefinedPrivileges(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create with mem_privileges 0x04",
                () -> t.lmr(t.pz(), 4096, 0x04));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: read-only memory with a privilege to write it")
    void readOnlyMemoryWithWritePrivileges(IaUnderTest t) {
        MemorySegment readOnly = t.memory(4096).asReadOnly();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of read-only memory with DAT_MEM_PRIV_LOCAL_WRITE_FLAG",
                () -> t.ia().registerMemory(readOnly, t.pz(), MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE));
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of read-only memory with DAT_MEM_PRIV_REMOTE_WRITE_FLAG",
                () -> t.ia().registerMemory(readOnly, t.pz(), MemPrivileges.LOCAL_READ | MemPrivileges.REMOTE_WRITE));
        t.ia().registerMemory(readOnly, t.pz(), MemPrivileges.LOCAL_READ | MemPrivileges.REMOTE_READ).close();
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: memory whose arena is closed")
    void memoryOfAClosedArena(IaUnderTest t) {
        MemorySegment gone;
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            gone = arena.allocate(4096);
        }
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of memory whose arena is closed",
                () -> t.ia().registerMemory(gone, t.pz(), MemPrivileges.LOCAL_READ));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: a region description that does not match the memory type")
    void mismatchedRegion(IaUnderTest t) {
        LocalMemoryRegion existing = t.lmr(t.pz(), 4096, MemPrivileges.ALL);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of DAT_MEM_TYPE_VIRTUAL described by an LMR handle",
                () -> t.ia().registerMemory(MemoryType.VIRTUAL, RegionDescription.ofLmr(existing), 4096, t.pz(), MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_PARAMETER: no memory (a NULL segment, or a NULL region description)")
    void noMemory(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of a NULL segment",
                () -> t.ia().registerMemory((MemorySegment) null, t.pz(), MemPrivileges.ALL));
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_lmr_create of DAT_MEM_TYPE_VIRTUAL with a NULL region description",
                () -> t.ia().registerMemory(MemoryType.VIRTUAL, null, 4096, t.pz(), MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_HANDLE: a freed PZ")
    void freedPz(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_create in a freed PZ", () -> t.lmr(pz, 4096, MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_HANDLE: a PZ of another IA instance")
    void foreignPz(IaUnderTest t) {
        ProtectionZone foreign = t.peer().createProtectionZone();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_create with a PZ of another IA instance",
                () -> t.lmr(t.ia(), foreign, 4096, MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_INVALID_HANDLE: the IA is closed")
    void closedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_create on a closed IA", () -> t.lmr(ia, pz, 4096, MemPrivileges.ALL));
        t.expectError(DatReturn.INVALID_HANDLE, "dat_lmr_create of a NULL segment on a closed IA: the handle is named first",
                () -> ia.registerMemory((MemorySegment) null, pz, MemPrivileges.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_lmr_create(3DAT) DAT_MODEL_NOT_SUPPORTED: a memory type the provider does not list as supported")
    void unsupportedMemoryType(IaUnderTest t) {
        MemoryType unsupported = Arrays.stream(MemoryType.values())
                .filter(type -> !t.provider().lmrMemTypesSupported().contains(type)).findFirst().orElse(null);
        t.requireFeasible(unsupported != null, "the provider supports every memory type, so none is unsupported");
        MemorySegment memory = t.memory(4096);
        RegionDescription region = switch (unsupported) {
            case LMR -> RegionDescription.ofLmr(t.lmr(t.pz(), 4096, MemPrivileges.ALL));
            case SHARED_VIRTUAL -> RegionDescription.sharedMemory(memory, new byte[DatConstants.LMR_COOKIE_SIZE]);
            case VIRTUAL, SO_VIRTUAL -> RegionDescription.virtual(memory);
        };
        t.expectError(DatReturn.MODEL_NOT_SUPPORTED, "dat_lmr_create of unsupported " + unsupported,
                () -> t.ia().registerMemory(unsupported, region, 4096, t.pz(), MemPrivileges.ALL));
    }

    /** Memory the platform shares: a mapped temporary file, deleted when the run's arena closes. */
    static MemorySegment sharedMemory(IaUnderTest t, long size) throws IOException {
        Path file = Files.createTempFile("dat-conformance-shared", ".mem");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.DELETE_ON_CLOSE)) {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, size, t.arena());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
