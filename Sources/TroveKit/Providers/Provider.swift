import TroveStore

/// The provider enum, under TroveKit's name: front ends see it without importing the store.
public typealias Provider = TroveStore.Provider
