/** The part of @20minutes/s3rver (which ships no types) the S3 attachment suite uses. */
declare module "@20minutes/s3rver" {
  export interface S3rverOptions {
    readonly address?: string
    readonly port?: number
    readonly silent?: boolean
    readonly directory?: string
    readonly resetOnClose?: boolean
    readonly vhostBuckets?: boolean
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string; readonly configs: ReadonlyArray<string> }>
  }
  export default class S3rver {
    constructor(options?: S3rverOptions)
    run(): Promise<{ readonly address: string; readonly port: number }>
    close(): Promise<void>
  }
}
