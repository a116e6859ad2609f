import { App } from "aws-cdk-lib";
import { addRoundtripStacks } from "../src/roundtrip-app.js";

// The region and account come from the AWS CLI profile at deploy time (environment-agnostic stacks).
const app = new App();
addRoundtripStacks(app);
app.synth();
