/** The package version, sent as `Svc-Sdk: svc-client/<version>`; a test keeps it equal to sdk/package.json's. */
export const SDK_VERSION = "0.2.0"
export const SDK_NAME = "svc-client"
