export { parseImageReference, familiarName, InvalidImageReferenceError, type ImageReference } from './image-ref.js';
export {
  normalizePlatform,
  formatPlatform,
  parsePlatform,
  platformMatches,
  selectPlatform,
  hostPlatformVector,
  windowsHostAndContainerCompatible,
  windowsBuilds,
  type Platform,
} from './platform.js';
export {
  ImageCatalog,
  defaultImagePlatforms,
  defaultImageSizeBytes,
  windowsBuildFromName,
  catalogFromData,
  loadCatalogFile,
  simulatedDigest,
  CatalogFileError,
  type CatalogRepository,
  type ImageManifest,
  type ImagePlatformEntry,
  type ImageLookup,
  type CatalogFile,
  type CatalogFileImage,
} from './catalog.js';
export { builtinRepositories, createDefaultCatalog } from './builtin-images.js';
export { Backoff, formatGoDuration } from './backoff.js';
export { resolvePull, pullDurationMs, noMatchingManifestMessage, referenceNotFoundMessage, type ResolvedImage, type PullResolution, type StartFailure } from './pull.js';
export { NodeImageStore, type StoredImage } from './image-store.js';
export {
  ImageManager,
  defaultPullPolicy,
  imageEventReasons,
  imageErrorReasons,
  type PullPolicy,
  type EnsureResult,
  type PullInProgress,
  type PullOutcome,
  type KubeletEvent,
  type ImageManagerOptions,
} from './image-manager.js';
export { checkRuntimeHandler, runtimeClassNotFoundMessage, FailedCreatePodSandBox, type SandboxCheck } from './sandbox.js';
export { imageOutcome, nodePlatform, type ImageOutcome } from './outcome.js';
