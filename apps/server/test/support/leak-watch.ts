// The one secret watch every suite shares lives with the shared test fixtures.
export { LeakWatch } from "@roundtrip/test-support/leak-watch";
