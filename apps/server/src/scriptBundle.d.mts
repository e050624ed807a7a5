/** Where bundles are kept (the server's own cache folder, beside its packages). */
export const BUNDLE_DIR: string;

/**
 * The file URL of `entry` bundled (a TypeScript module and what it imports from the workspace) in `dir` (default
 * `BUNDLE_DIR`): the bundle already there when its sources are as they were, else one built now.
 */
export function bundleScript(entry: URL, dir?: string): Promise<URL>;
