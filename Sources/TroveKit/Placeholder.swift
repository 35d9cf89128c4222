public enum TroveKitPlaceholder {}
