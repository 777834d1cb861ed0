import Foundation
import Testing
import TroveShell

/// An app that opens stores through the shell's backends and shows a caught error's
/// `localizedDescription` shows what the shell prints for a store that needs its key.
@Suite struct EncryptionKeyNeededTests {
    @Test func readsAsItsMessage() {
        let error: any Error = EncryptionKeyNeeded(path: "/tmp/sealed.trove")
        #expect(error.localizedDescription
            == "cannot open '/tmp/sealed.trove': the store is encrypted: give its key with --key-file FILE")
        #expect(error.localizedDescription == "\(error)")
    }
}
