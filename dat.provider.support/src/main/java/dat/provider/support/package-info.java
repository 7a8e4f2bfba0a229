/**
 * What the native DAT providers (verbs over libibverbs, ofi over libfabric) share: the DAT return
 * codes and exceptions they answer, an Endpoint state's among them
 * ({@link dat.provider.support.ReturnCodes}), the base of their handles
 * ({@link dat.provider.support.NativeHandle}), a CNO's state and wait
 * ({@link dat.provider.support.CnoWaits}), an EVD's ring of events other than completions
 * ({@link dat.provider.support.EventRing}), an Endpoint's high watermarks
 * ({@link dat.provider.support.EpHighWatermarks}), the checks of the LMR sync calls
 * ({@link dat.provider.support.SyncSegments}), the counts of a handle's users
 * ({@link dat.provider.support.UseCounts}), the lock-free table their data paths look objects up
 * in ({@link dat.provider.support.IntTable}), the checks of dat_ep_dup_connect's arguments
 * ({@link dat.provider.support.ConnectArguments}) and of dat_rmr_bind's
 * ({@link dat.provider.support.RmrBindArguments}), the completion flags a post may carry
 * ({@link dat.provider.support.PostFlags}), the segments a request may name
 * ({@link dat.provider.support.RequestIov}) and the count of an EVD's streams that refuse wait
 * thresholds above 1 ({@link dat.provider.support.ConsumerNotifiedStreams}), and the OSGi services a
 * provider's bundle registers ({@link dat.provider.support.ProviderServices}). Not exported: each provider bundle
 * carries a private copy of this package (bnd {@code -conditionalpackage}), so providers never
 * depend on each other's version of it.
 */
package dat.provider.support;
