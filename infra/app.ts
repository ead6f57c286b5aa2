/** CDK app entry (placeholder until the deployment issue lands the stack). */
import { App } from 'aws-cdk-lib';

const app = new App();
app.synth();
